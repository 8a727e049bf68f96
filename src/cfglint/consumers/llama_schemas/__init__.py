"""The pydantic schemas of the Llama profiles, one module per runtime (its source is in the profile's docstring).

Apart from the profiles so that building their classes is paid for only by a Llama file or `cfglint schema`:
a check of any other family never imports them.
"""
