"""Running a deployment: the installed version and checks for upgrades."""
