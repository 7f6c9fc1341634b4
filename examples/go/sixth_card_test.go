package main

import (
	"testing"

	cardarenav1 "cardarena/gen/go/cardarena/v1"
)

// The rules text's example: the rows end with 8♥, Q♠ (five cards, 13 points), 2♣ and 7♦.
func exampleRows() []*cardarenav1.SixthCardRow {
	return []*cardarenav1.SixthCardRow{
		{Cards: []string{"5♣", "8♥"}, Points: 3},
		{Cards: []string{"9♠", "10♣", "J♦", "Q♥", "Q♠"}, Points: 13},
		{Cards: []string{"2♣"}, Points: 1},
		{Cards: []string{"7♦"}, Points: 1},
	}
}

func plays(cards ...string) []*cardarenav1.Action {
	actions := make([]*cardarenav1.Action, len(cards))
	for k, c := range cards {
		play := &cardarenav1.SixthCardAction{Kind: &cardarenav1.SixthCardAction_Play{Play: c}}
		actions[k] = &cardarenav1.Action{Label: "play " + c, Action: &cardarenav1.Action_SixthCard{SixthCard: play}}
	}
	return actions
}

func TestLadder(t *testing.T) { // C2, and the text's "7♠ is higher than 7♦ but lower than 8♣"
	if ladder("A♣") != 1 || ladder("K♠") != 52 || ladder("10♦") != 38 || ladder("Jo") != 0 {
		t.Fatalf("ladder: A♣ %d, K♠ %d, 10♦ %d, Jo %d", ladder("A♣"), ladder("K♠"), ladder("10♦"), ladder("Jo"))
	}
	if !(ladder("7♦") < ladder("7♠") && ladder("7♠") < ladder("8♣")) {
		t.Fatal("7♦ < 7♠ < 8♣")
	}
}

// With the example's four cards in hand: K♣ would be row 2's sixth card (13 points, C8), A♥
// is too low (C9: a row to take), J♠ goes to row 1 with a wide gap, 7♠ lies right above 7♦
// (C6): the heuristic plays 7♠.
func TestCardChoiceWatchesTheGaps(t *testing.T) {
	view := &cardarenav1.SixthCardView{Rows: exampleRows()}
	k, ok := chooseSixthCard(view, plays("A♥", "7♠", "J♠", "K♣"))
	if !ok || k != 1 {
		t.Fatalf("played action %d (ok %v), want 1 (7♠)", k, ok)
	}
	// without 7♠ and J♠, the cheap row to take (1 point) beats the sixth card (13)
	if k, _ := chooseSixthCard(view, plays("A♥", "K♣")); k != 0 {
		t.Fatalf("played action %d, want 0 (A♥)", k)
	}
}

// The example's row choice: Carla's A♥ is too low and she takes row 3 (just the 2♣, 1 point);
// row 4 holds 1 point too, in as few cards, so the lower index decides (C14's order).
func TestRowChoiceTakesTheCheapestRow(t *testing.T) {
	view := &cardarenav1.SixthCardView{Rows: exampleRows(), Phase: "row", ChoiceReason: "too_low", ChoiceCard: "A♥"}
	actions := make([]*cardarenav1.Action, 4)
	for row := range actions {
		take := &cardarenav1.SixthCardAction{Kind: &cardarenav1.SixthCardAction_Row{Row: int32(row)}}
		actions[row] = &cardarenav1.Action{Action: &cardarenav1.Action_SixthCard{SixthCard: take}}
	}
	if k, ok := chooseSixthCard(view, actions); !ok || k != 2 {
		t.Fatalf("took row index %d (ok %v), want 2 (row 3)", k, ok)
	}
}

func TestOtherGamesAreLeftToChance(t *testing.T) {
	other := []*cardarenav1.Action{{Action: &cardarenav1.Action_ThreeThirteen{ThreeThirteen: &cardarenav1.ThreeThirteenAction{}}}}
	if _, ok := chooseSixthCard(&cardarenav1.SixthCardView{Rows: exampleRows()}, other); ok {
		t.Fatal("a Three Thirteen action taken for Sixth Card's")
	}
}
