"""Pictures of compiled plans (`taskplan graph`): see render/graph.py."""
