from vendiscope.cli import main

main()
