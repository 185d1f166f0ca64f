"""What an operator runs beside the load, and what keeps two of them apart: the run lock, `loader status`,
`loader audit` and table maintenance (`loader maintain`)."""
