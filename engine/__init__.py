"""The Scrabble engine of the arbiter: pure Python, no Django (see README.md)."""
