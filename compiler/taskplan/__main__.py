from taskplan.cli import main

main()
