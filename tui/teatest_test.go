package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// Smoke tests through a real tea.Program (teatest): the model starts,
// draws, answers keys and quits inside the Bubble Tea runtime, not only
// when its methods are called directly.

func fixedNow() time.Time { return t0.Add(31 * time.Second) }

func waitFor(t *testing.T, tm *teatest.TestModel, what string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains([]byte(ansi.Strip(string(b))), []byte(what))
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func TestSmokeApproveThroughTheProgram(t *testing.T) {
	fa := &fakeActor{}
	key := testKey(t)
	m := newModel(Options{Workspace: "/w", Key: &key, Actor: fa, PID: 1, location: time.UTC, theme: plainTheme(), now: fixedNow})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	tm.Send(journalMsg{Reset: true, Entries: entries(t), MACs: true})
	waitFor(t, tm, "APPROVAL NEEDED")
	// A y decides only after the guard and a pause; on a loaded machine
	// the guard's timer may fire late, and a y inside it puts the request
	// aside until the keyboard is still. So press y every 1.5 s (longer
	// than the quiet period and the guard together) until it decides.
	// Wait for the decision itself rather than its text on screen: the
	// renderer repaints only changed cells, so "approved once" need not
	// ever appear as one run of bytes in the output stream.
	decided := func() int {
		fa.mu.Lock()
		defer fa.mu.Unlock()
		return len(fa.decided)
	}
	for deadline := time.Now().Add(20 * time.Second); decided() == 0 && time.Now().Before(deadline); {
		time.Sleep(1500 * time.Millisecond)
		tm.Send(tea.KeyPressMsg{Code: 'y', Text: "y"})
		for until := time.Now().Add(time.Second); decided() == 0 && time.Now().Before(until); time.Sleep(20 * time.Millisecond) {
		}
	}
	// This cockpit runs the registry of live sessions: q asks first.
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	waitFor(t, tm, "QUIT AND STOP THE REGISTRY?")
	tm.Send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	fa.mu.Lock()
	defer fa.mu.Unlock()
	if len(fa.decided) != 1 || !strings.Contains(fa.decided[0], "|approved|once|") {
		t.Errorf("decided %v", fa.decided)
	}
}

func TestSmokeGuardHoldsInRealTime(t *testing.T) {
	fa := &fakeActor{}
	// A long guard, so that a slow machine cannot make the key arrive
	// after it: the mechanism is the same at 400 ms.
	m := newModel(Options{Actor: fa, location: time.UTC, theme: plainTheme(), now: fixedNow, guard: 5 * time.Second})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	tm.Send(journalMsg{Reset: true, Entries: entries(t)})
	waitFor(t, tm, "APPROVAL NEEDED")
	tm.Send(tea.KeyPressMsg{Code: 'y', Text: "y"}) // well inside 400 ms
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	fa.mu.Lock()
	defer fa.mu.Unlock()
	// The only decision is ctrl+c's: quitting the registry tells the
	// waiting agent why no human will answer.
	if len(fa.decided) != 1 || !strings.HasSuffix(fa.decided[0], "|denied||"+reasonRegistryStopped) {
		t.Errorf("a key inside the guard decided: %v", fa.decided)
	}
}

func TestSmokeResizeAndTinyTerminal(t *testing.T) {
	m := newModel(Options{location: time.UTC, theme: plainTheme(), now: fixedNow})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(20, 5))
	tm.Send(journalMsg{Reset: true, Entries: entries(t)})
	waitFor(t, tm, "too small")
	tm.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	waitFor(t, tm, "Journal")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}
