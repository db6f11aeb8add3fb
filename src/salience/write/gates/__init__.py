"""The write gates (pure): privacy redaction, the secret scanner, the signal gate."""
