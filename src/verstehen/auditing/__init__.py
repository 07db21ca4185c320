"""The main job: each model through every lens (certification, Potemkin keystone, incoherence)
on the concepts of a subject, in one audit folder with one report."""
