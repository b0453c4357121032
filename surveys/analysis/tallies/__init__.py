"""What workers write: tallies kept current from committed reports, and results
snapshots.
"""
