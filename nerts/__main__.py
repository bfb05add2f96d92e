from nerts.cli import main

raise SystemExit(main())
