from verstehen.cli import main

raise SystemExit(main())
