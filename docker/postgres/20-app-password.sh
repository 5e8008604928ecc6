#!/bin/sh
# The application role's password, from APP_DB_PASSWORD (docker/compose.yml); run after 10-app-role.sql when
# PostgreSQL's data volume is created.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
     -v password="${APP_DB_PASSWORD:?set APP_DB_PASSWORD}" <<'SQL'
ALTER ROLE arbiter_app PASSWORD :'password';
SQL
