"""Text as every stage reads it: normalised for matching, laid out for reading,
split into words, and escaped for wherever an untrusted string is shown."""
