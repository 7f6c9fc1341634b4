// Sixth Card: a small heuristic after the rules text's tips for beginners.
//
// Card choice ("watch the gaps"): every card in hand goes to its target row (C6: the row whose
// last card is the highest card still below it; a twin counts as just below its twin). A card
// that would be a row's sixth card costs that row's points (C8); a card lower than every row's
// end costs the cheapest row's points (C9: its owner takes a row); any other card costs nothing,
// and of those the one closest above its row's end is played (the safest gap).
//
// Row choice (too low, or twin rows): the row with the fewest penalty points, then the fewest
// cards, then the lowest index: "a short, cheap row may be fine" (the tips; C14 is the same
// order).
package main

import (
	"strings"

	cardarenav1 "cardarena/gen/go/cardarena/v1"
)

const rowLimit = 5

var ranks = []string{"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
var suits = []string{"♣", "♦", "♥", "♠"}

// ladder gives a card's place on the ladder (C2: rank first, then ♣ < ♦ < ♥ < ♠), 1 = A♣ …
// 52 = K♠, or 0 for text that is not a card.
func ladder(card string) int {
	for s, suit := range suits {
		if rank := strings.TrimSuffix(card, suit); rank != card {
			for r, name := range ranks {
				if name == rank {
					return 4*r + s + 1
				}
			}
		}
	}
	return 0
}

// chooseSixthCard returns the index of the action to play, and false when the actions are not
// Sixth Card's (then the caller plays at random).
func chooseSixthCard(view *cardarenav1.SixthCardView, actions []*cardarenav1.Action) (int, bool) {
	typed := make([]*cardarenav1.SixthCardAction, len(actions))
	for k, a := range actions {
		t, ok := a.Action.(*cardarenav1.Action_SixthCard)
		if !ok {
			return 0, false
		}
		typed[k] = t.SixthCard
	}
	if _, ok := typed[0].Kind.(*cardarenav1.SixthCardAction_Row); ok {
		return chooseRow(view.Rows, typed), true
	}
	return chooseCard(view.Rows, typed), true
}

func chooseRow(rows []*cardarenav1.SixthCardRow, actions []*cardarenav1.SixthCardAction) int {
	best, bestRow := 0, -1
	for k, a := range actions {
		row := int(a.GetRow())
		if bestRow < 0 || rows[row].Points < rows[bestRow].Points ||
			(rows[row].Points == rows[bestRow].Points && len(rows[row].Cards) < len(rows[bestRow].Cards)) {
			best, bestRow = k, row
		}
	}
	return best
}

func chooseCard(rows []*cardarenav1.SixthCardRow, actions []*cardarenav1.SixthCardAction) int {
	cheapest := rows[0].Points
	for _, row := range rows {
		if row.Points < cheapest {
			cheapest = row.Points
		}
	}
	best, bestCost, bestGap := 0, int32(-1), 0
	for k, a := range actions {
		card := ladder(a.GetPlay())
		target, end := -1, 0
		for i, row := range rows {
			if e := ladder(row.Cards[len(row.Cards)-1]); e <= card && e > end {
				target, end = i, e
			}
		}
		cost, gap := int32(0), card-end
		switch {
		case target < 0: // too low
			cost, gap = cheapest, 0
		case len(rows[target].Cards) >= rowLimit: // the sixth card
			cost = rows[target].Points
		}
		if bestCost < 0 || cost < bestCost || (cost == bestCost && gap < bestGap) {
			best, bestCost, bestGap = k, cost, gap
		}
	}
	return best
}
