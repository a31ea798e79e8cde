import sys

from guardrail.cli import main

sys.exit(main())
