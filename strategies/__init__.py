"""Strategies for every decision of a deal: evaluate, bid, pick up or play hand, discard, declare, play cards."""
