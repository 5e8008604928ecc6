-- The application's database role: arbiter_app reads and writes the rows, owns nothing, and may not
-- UPDATE, DELETE or TRUNCATE the arbitration log. Migrations run as the owner role (POSTGRES_USER, arbiter),
-- which creates the tables; the web server, the worker and beat connect as arbiter_app (docker/compose.yml).
-- A role that does not own a table cannot drop or disable its triggers either (docker/README.md, "Database
-- roles").
--
-- Run by PostgreSQL's entrypoint, as the owner role, when the data volume is created (this folder is mounted
-- on /docker-entrypoint-initdb.d); 20-app-password.sh then sets the role's password. On an existing volume,
-- run it by hand as the owner, after the migrations:
--   docker compose -f docker/compose.yml exec -T postgres psql -U arbiter -d arbiter < docker/postgres/10-app-role.sql
-- Running it again changes nothing.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'arbiter_app') THEN
        CREATE ROLE arbiter_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
    END IF;
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO arbiter_app', current_database());
END
$$;

-- No new tables of its own (PostgreSQL 15 and later refuse CREATE in public to other roles already).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO arbiter_app;

-- The tables there now, and those the owner's migrations create later.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO arbiter_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO arbiter_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO arbiter_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO arbiter_app;

-- The log: read and append only. Migration 0012 revokes the same from every role but the owner, so a log
-- table created after this script (a new volume: the migrations run later) loses them too.
DO $$
BEGIN
    IF to_regclass('public.tournaments_logentry') IS NOT NULL THEN
        REVOKE UPDATE, DELETE, TRUNCATE ON tournaments_logentry FROM arbiter_app;
    END IF;
END
$$;
