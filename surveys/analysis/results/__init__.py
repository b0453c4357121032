"""What pages, exports and the API read: result objects, estimates from tallies, the
latest snapshot.
"""
