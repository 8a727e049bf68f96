"""The tokenizer files read beside config.json, by name.

Kept apart from cfglint.stops so that a check can tell from a directory listing whether the stop-token
analysis applies before importing it (most configs are checked without tokenizer files).
"""

TOKENIZER_CONFIG = "tokenizer_config.json"
SPECIAL_TOKENS_MAP = "special_tokens_map.json"
TOKENIZER = "tokenizer.json"
TEMPLATE_FILE = "chat_template.jinja"
TEMPLATE_JSON = "chat_template.json"
NAMES = (TOKENIZER_CONFIG, SPECIAL_TOKENS_MAP, TOKENIZER, TEMPLATE_FILE, TEMPLATE_JSON)
