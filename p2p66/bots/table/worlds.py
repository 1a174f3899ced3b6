"""What a seat can infer about hidden cards, and full states (worlds) consistent with it.

Every card played tells something under the strict follow duty: a seat that
did not follow suit holds none of it; one that did not trump holds no trump;
one that did not beat the trick when it had to holds nothing that beats it.
``forbidden`` collects these facts per seat, exactly; ``sample_world`` deals
the unseen cards at random within them and replays the public moves.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from p2p66.engine.cards import SUIT_MASKS, ids_of, mask_of
from p2p66.engine.table import BiddingHand, TableView, new_bidding_hand, table_layout


def forbidden(view: TableView) -> list[int]:
    """Per seat, the cards it provably does not hold (from how it followed)."""
    n = view.options.players
    out = [0] * n
    trump = view.trump if view.trump is not None else -1
    tricks = [t.plays for t in view.tricks]
    if view.trick:
        tricks.append(view.trick)
    overtrump = view.options.overtrump
    for plays in tricks:
        led_card = plays[0][1].id
        led = led_card // 6
        best_led = led_card
        best_trump = led_card if led == trump else -1
        for seat, card in plays[1:]:
            c = card.id
            if c // 6 == led:
                if (led == trump or best_trump < 0) and c > best_led:
                    out[seat] |= SUIT_MASKS[led] & ((1 << best_led) - 1)
            else:
                out[seat] |= SUIT_MASKS[led]
                if c // 6 != trump:
                    out[seat] |= SUIT_MASKS[trump] if trump >= 0 else 0
                elif overtrump and best_trump >= 0 and c > best_trump:
                    out[seat] |= SUIT_MASKS[trump] & ((1 << best_trump) - 1)
            if c // 6 == led and c < best_led:
                best_led = c
                if led == trump:
                    best_trump = c
            elif c // 6 == trump and (best_trump < 0 or c < best_trump):
                best_trump = c
    return out


def played_by(view: TableView) -> list[int]:
    """Per seat, the cards it has played this hand."""
    out = [0] * view.options.players
    for t in view.tricks:
        for seat, card in t.plays:
            out[seat] |= card.bit
    for seat, card in view.trick:
        out[seat] |= card.bit
    return out


def guess_hands(view: TableView, rng: random.Random, bans: list[int]) -> tuple[list[int], int]:
    """Current hands of every seat and the face-down widow, guessed within ``bans``."""
    n = view.options.players
    hands = [0] * n
    hands[view.seat] = mask_of(view.hand)
    need = [0] * (n + 1)  # index n: the widow
    for seat in range(n):
        if seat != view.seat:
            shown = mask_of(view.shown[seat])
            hands[seat] = shown
            need[seat] = view.hand_sizes[seat] - len(view.shown[seat])
    if view.widow_taker is None:
        need[n] = view.options.widow_size
    unseen = ids_of(mask_of(view.unseen))
    for attempt in range(30):
        strict = attempt < 29
        left = need[:]
        got = [0] * (n + 1)
        cards = unseen[:]
        rng.shuffle(cards)
        # the most constrained cards first
        cards.sort(key=lambda c: sum(1 for s in range(n) if left[s] and not bans[s] >> c & 1))
        ok = True
        for c in cards:
            slots = [
                s
                for s in range(n + 1)
                if left[s] and (s == n or not strict or not bans[s] >> c & 1)
            ]
            if not slots:
                ok = False
                break
            total = sum(left[s] for s in slots)
            pick = rng.randrange(total)
            for s in slots:
                pick -= left[s]
                if pick < 0:
                    break
            got[s] |= 1 << c
            left[s] -= 1
        if ok:
            for seat in range(n):
                hands[seat] |= got[seat]
            return hands, got[n]
    raise AssertionError("unreachable: the last attempt ignores the bans")


def sample_world(
    view: TableView,
    rng: random.Random,
    bans: list[int] | None = None,
    fits: Callable[[TableView, list[int]], int] | None = None,
    tries: int = 1,
) -> BiddingHand:
    """A full state matching ``view``: guessed hidden cards, the public moves replayed.

    With ``fits`` (how many calls a guess of the original hands contradicts),
    up to ``tries`` guesses are drawn and the first that contradicts none, else
    the one that contradicts fewest, is used: worlds consistent with the calls.
    """
    bans = bans if bans is not None else forbidden(view)
    played = played_by(view)
    best: tuple[int, list[int], int] | None = None
    for _ in range(max(1, tries)):
        hands, widow = guess_hands(view, rng, bans)
        if fits is None:
            best = (0, hands, widow)
            break
        misfit = fits(view, [h | p for h, p in zip(hands, played, strict=True)])
        if best is None or misfit < best[0]:
            best = (misfit, hands, widow)
        if misfit == 0:
            break
    assert best is not None
    _misfit, hands, widow = best
    opts = view.options
    lay = table_layout(opts)
    deck = [0] * 24
    for seat in range(opts.players):
        cards = ids_of(hands[seat] | played[seat])
        for pos, card in zip(lay.hand_positions(seat, view.dealer), cards, strict=True):
            deck[pos] = card
    widow_cards = ids_of(widow) if view.widow_taker is None else [c.id for c in view.widow]
    for pos, card in zip(lay.widow, widow_cards, strict=True):
        deck[pos] = card
    world = new_bidding_hand(opts, deck, view.dealer)
    for code in view.moves:
        world.apply_code_unchecked(code)
    return world
