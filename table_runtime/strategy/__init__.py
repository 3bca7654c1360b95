"""Basic strategy and house edge computed for any rule set.

`Strategy.for_rules(options)` gives the simulator an O(1) `decide`; `solve`
gives the chart, the bank's final-total probabilities and the house edge.
"""

from table_runtime.strategy.chart import Action, Strategy
from table_runtime.strategy.solver import Solution, solve
from table_runtime.strategy.terms import PlayTerms

__all__ = ["Action", "PlayTerms", "Solution", "Strategy", "solve"]
