"""AgentJet engine: the Python process that owns the model's tensors, spoken to over stdio frames."""

__version__ = "0.1.0"
