import sys

from rapsim.cli import main

sys.exit(main())
