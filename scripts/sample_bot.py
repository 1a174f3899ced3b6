#!/usr/bin/env python3
"""A complete external bot for p2p66 in plain Python (no p2p66 import): protocol/BOT.md.

Run it as a bot:  p2p66 match "python3 scripts/sample_bot.py" random
Check it:         p2p66 bot check "python3 scripts/sample_bot.py"

It reads one JSON message per line on stdin and answers on stdout; its logs
go to stderr. The play is deliberately simple: declare at 66, take the
exchange and marriages, win a trick cheaply when it is worth points,
otherwise throw the cheapest card. Copy it and make it clever.
"""

import json
import sys

POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
ORDER = "ATKQJ9"  # high to low


def log(*parts):
    print("sample_bot:", *parts, file=sys.stderr, flush=True)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def beats(card, lead, trump):
    """Does ``card`` played second win against ``lead``?"""
    if card[1] == lead[1]:
        return ORDER.index(card[0]) < ORDER.index(lead[0])
    return card[1] == trump


def cost(card, trump):
    """How much we hate to give ``card`` away: its points, trumps dearer."""
    return POINTS[card[0]] + (10 if card[1] == trump else 0)


def choose_bidding(request):
    """A bidding game (north-american, south-bend, cut-throat): pass, then cheap cards."""
    view = request["view"]
    legal = request["legal"]
    if view["phase"] == "bid":
        strong = sum(POINTS[c[0]] for c in view["hand"]) >= 50
        return "bid:1" if strong and "bid:1" in legal else "pass"
    marriages = [m for m in legal if m.startswith("marry:")]
    if marriages:
        return marriages[0]
    trump = view["trump_suit"]
    cards = [m[5:] for m in legal if m.startswith("play:")]
    return "play:" + min(cards, key=lambda c: cost(c, trump))


def choose(request):
    if request.get("game") == "bidding":
        return choose_bidding(request)
    view = request["view"]
    legal = request["legal"]
    trump = view["trump_suit"]
    if "declare" in legal and view["my_points"] >= 66:
        return "declare"
    if view["phase"] in ("marriage-declare", "final-declare"):
        return "pass" if "pass" in legal else legal[0]
    if view["phase"] == "draw":
        return "draw"
    if "exchange" in legal:
        return "exchange"
    marriages = [m for m in legal if m.startswith("marry:")]
    if marriages:
        return max(marriages, key=lambda m: m[-1] == trump)
    cards = [m[5:] for m in legal if m.startswith("play:")]
    lead = view["lead"]
    if lead is not None:
        worth = POINTS[lead[0]] >= 10
        winners = [c for c in cards if beats(c, lead, trump)]
        if winners and (worth or lead[1] != trump):
            return "play:" + min(winners, key=lambda c: cost(c, trump))
    return "play:" + min(cards, key=lambda c: cost(c, trump))


def main():
    for raw in sys.stdin:
        text = raw.strip()
        if not text:
            continue
        try:
            message = json.loads(text)
        except ValueError:
            log("ignoring a line that is not JSON:", text[:80])
            continue
        kind = message.get("type")
        if kind == "hello":
            send(
                {
                    "type": "ready",
                    "name": "sample",
                    "author": "p2p66 authors",
                    "protocol": "p2p66-bot/1",
                }
            )
        elif kind == "new_game":
            log("new game, seat", message.get("seat"), "preset", message.get("preset"))
        elif kind == "request":
            move = choose(message)
            send({"type": "action", "id": message["id"], "move": move})
        elif kind == "hand_end":
            result = message["view"]["result"]
            log("hand over:", result["how"], "winner seat", result.get("winner"))
        elif kind == "quit":
            return
        # any other type is ignored, so newer runners stay compatible


if __name__ == "__main__":
    main()
