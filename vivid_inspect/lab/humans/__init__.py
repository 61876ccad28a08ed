"""humans."""
