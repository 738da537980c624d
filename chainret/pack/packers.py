"""Packers beyond ``naive`` (registered on import by ``chainret.pack.base``)."""
