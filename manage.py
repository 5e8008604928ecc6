#!/usr/bin/env python
import sys


def main():
    from arbiter.settings import choose

    # A checkout's developer tool: the development settings, unless DJANGO_SETTINGS_MODULE names others.
    choose(development=True)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
