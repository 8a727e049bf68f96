"""cfglint: find where model runtimes read a Hugging Face config.json differently from transformers."""

__version__ = "0.1.0"
