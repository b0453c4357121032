"""Files researchers download: estimates, raw reports, the design card, the per-
respondent datasets (CSV, SPSS, Stata, R).
"""
