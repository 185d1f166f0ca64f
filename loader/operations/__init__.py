"""What an operator runs beside the load: table maintenance (`loader maintain`)."""
