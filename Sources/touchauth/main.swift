import TouchAuthCommands
TouchAuthCommands.main()
