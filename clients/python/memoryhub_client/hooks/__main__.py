import sys

from memoryhub_client.hooks.cli import main

sys.exit(main())
