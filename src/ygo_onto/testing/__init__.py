"""Test support that tests and scripts share: the differential test of the reasoner backends
(`ygo_onto.testing.differential`) and random well-typed states (`ygo_onto.testing.random_states`)."""
