"""The actions on data, without a browser: values named, conditions asserted, failures raised,
items compared and exported. One module per action.
"""
