"""Importers: game archives of other programs turned into run folders.

Each format is one subpackage (:mod:`sim.imports.iss` for the International Skat Server).
Imports the rules engine, the strategies (for the evaluators logged) and the run format;
never analysis or the commands.
"""
