from coffeetable.cli.main import main

raise SystemExit(main())
