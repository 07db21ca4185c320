from verstehen.cli.main import main

raise SystemExit(main())
