"""Test support that tests and scripts share: the differential test of the reasoner backends
(`ygo_onto.testing.differential`)."""
