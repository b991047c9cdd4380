"""The pieces of training on several machines.

Each function here runs inside one worker's task on plain NumPy arrays (one partition of
the data, or the small results of other tasks); none of them knows which engine schedules
it, so the same pieces serve any cluster and are tested without one.
"""
