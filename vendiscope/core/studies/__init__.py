"""Studies: does a diversity score predict how well a model trained on a subset generalizes?"""
