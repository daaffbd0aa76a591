//! The Watch panel: an agent plays the open puzzle, a move at a time or on
//! at a chosen speed, and shows what it thought of each legal move (visits
//! and wins for MCTS, wins of its playouts for flat Monte Carlo).
//!
//! The agent runs in a thread of its own (an [`Answerer`]), which chooses
//! one move each time the panel asks; Stop drops it, and the thread ends
//! after the move it is choosing. A watched game is the agent's: it never
//! touches the player's game or the play record saved with a rating.
//!
//! The randomised agents draw from a generator seeded by the seed shown, so
//! the same seed replays the same game. The board is drawn at the size and
//! place of the Play panel's ([`board_space`]), with the last move marked
//! as a hint is there.

use super::BoafApp;
use super::board::{Highlight, board_space, board_ui, move_text};
use super::task::{Answerer, Poll};
use boaf_core::agents::{AgentSpec, Estimate, Position, Unestimated, Weights, game_rng};
use boaf_core::engine::state::{Move, State};
use boaf_core::format::plural;
use eframe::egui;
use std::time::{Duration, Instant};

/// The agents the panel offers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Random,
    Greedy,
    FlatMonteCarlo,
    Mcts,
    MctsPlain,
    BestFirst,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::Random,
        Kind::Greedy,
        Kind::FlatMonteCarlo,
        Kind::Mcts,
        Kind::MctsPlain,
        Kind::BestFirst,
    ];

    fn title(self) -> &'static str {
        match self {
            Kind::Random => "Random (seed 004's monkey)",
            Kind::Greedy => "Greedy (score + 2.5 · moves)",
            Kind::FlatMonteCarlo => "Flat Monte Carlo",
            Kind::Mcts => "MCTS (keeps a winning line)",
            Kind::MctsPlain => "MCTS, plain (searches every move)",
            Kind::BestFirst => "Best-first search (plays the solution it finds)",
        }
    }

    /// What its budget counts, if it has one.
    fn budget_unit(self) -> Option<&'static str> {
        match self {
            Kind::FlatMonteCarlo => Some("playouts per legal move"),
            Kind::Mcts | Kind::MctsPlain => Some("iterations per move"),
            Kind::BestFirst => Some("nodes a search"),
            Kind::Random | Kind::Greedy => None,
        }
    }

    /// The budget it starts with when chosen.
    fn default_budget(self) -> u32 {
        match self {
            Kind::FlatMonteCarlo => 100,
            Kind::BestFirst => 10_000,
            _ => 300,
        }
    }

    /// Whether it draws from its generator (so that its seed matters).
    fn randomised(self) -> bool {
        !matches!(self, Kind::Greedy | Kind::BestFirst)
    }

    /// The largest budget offered: a move then takes a few seconds at most
    /// (a stopped agent finishes the move it is choosing).
    fn max_budget(self) -> u32 {
        match self {
            Kind::FlatMonteCarlo => 10_000,
            Kind::Mcts | Kind::MctsPlain => 100_000,
            _ => 1_000_000,
        }
    }

    fn spec(self, budget: u32) -> AgentSpec {
        let w = Weights::default();
        match self {
            Kind::Random => AgentSpec::Random,
            Kind::Greedy => AgentSpec::Greedy(w),
            Kind::FlatMonteCarlo => AgentSpec::FlatMonteCarlo(budget),
            Kind::Mcts => AgentSpec::Mcts(budget, w),
            Kind::MctsPlain => AgentSpec::MctsPlain(budget, w),
            Kind::BestFirst => AgentSpec::BestFirst(budget.into(), w),
        }
    }
}

/// The agent's answer to one request for a move.
enum Reply {
    /// It chose this move, thinking this of each legal move (or why it
    /// did not), in this time.
    Moved(Move, Estimates, Duration),
    /// It had no legal move.
    Stuck,
}

/// What the agent thought of each legal move, or why it has no estimates.
type Estimates = Result<Vec<Estimate>, Unestimated>;

/// The thread that plays: asked for one move at a time; it ends when the
/// panel drops it (Stop, a new game).
type Worker = Answerer<(), Reply>;

/// Starts an agent playing from `start`, its `moves`-th position, in a
/// thread of its own: the same seed and position draw the same chances.
fn start_worker(
    spec: &AgentSpec,
    start: &State,
    (seed, moves): (u64, usize),
    ctx: &egui::Context,
) -> Worker {
    let (lay, mut pos) = Position::new(start);
    let mut agent = spec.build();
    let mut rng = game_rng(seed, moves as u64, 0);
    Answerer::spawn(ctx, move |()| {
        let started = Instant::now();
        match agent.choose(&lay, &pos, &mut rng) {
            Some(mv) => {
                pos = pos.apply(mv);
                let estimates = match agent.unestimated() {
                    Some(why) if agent.estimates().is_empty() => Err(why),
                    _ => Ok(agent.estimates().to_vec()),
                };
                Reply::Moved(mv, estimates, started.elapsed())
            }
            None => Reply::Stuck,
        }
    })
}

/// The last move the agent made and what it thought.
struct Choice {
    /// The position it chose in (to name the moves).
    before: State,
    mv: Move,
    estimates: Estimates,
    took: Duration,
}

/// A watched game.
struct Watched {
    puzzle: String,
    /// The agent and budget it is played by.
    spec: AgentSpec,
    /// The seed its generator starts from.
    seed: u64,
    state: State,
    moves: usize,
    last: Option<Choice>,
    worker: Option<Worker>,
    /// Playing on by itself, and when the next move is due.
    playing_on: bool,
    due: Instant,
    /// How it ended: won, or stuck with stacks left.
    over: Option<bool>,
}

/// The Watch panel's state.
pub(super) struct WatchPanel {
    kind: Kind,
    budget: u32,
    /// Moves a second when playing on.
    speed: f32,
    /// The seed of the randomised agents, and the field's text.
    seed: u64,
    seed_text: String,
    game: Option<Watched>,
}

impl Default for WatchPanel {
    fn default() -> Self {
        WatchPanel {
            kind: Kind::Mcts,
            budget: 300,
            speed: 2.0,
            seed: 1,
            seed_text: "1".into(),
            game: None,
        }
    }
}

impl WatchPanel {
    /// Forgets the watched game (a new candidate was opened); its agent stops.
    pub(super) fn clear(&mut self) {
        self.game = None;
    }

    fn spec(&self) -> AgentSpec {
        self.kind.spec(self.budget.max(1))
    }

    /// The seed in use: the field's, for an agent that draws on chance.
    fn seed(&self) -> u64 {
        if self.kind.randomised() { self.seed } else { 0 }
    }

    /// A new game of `state` by the chosen agent, with the chosen seed (so
    /// that a game replays).
    fn new_game(&mut self, puzzle: &str, state: &State) {
        self.game = Some(Watched {
            puzzle: puzzle.to_string(),
            spec: self.spec(),
            seed: self.seed(),
            state: state.clone(),
            moves: 0,
            last: None,
            worker: None,
            playing_on: false,
            due: Instant::now(),
            over: None,
        });
    }

    /// Takes the agent's answer, if it came, and asks for the next move when
    /// one is due. Never waits.
    pub(super) fn poll(&mut self, ctx: &egui::Context) {
        let speed = self.speed;
        let Some(g) = &mut self.game else { return };
        if let Some(w) = &mut g.worker {
            match w.poll() {
                Poll::Done(Reply::Moved(mv, estimates, took)) => {
                    let before = g.state.clone();
                    match before.apply(mv) {
                        Ok(next) => g.state = next,
                        Err(_) => {
                            // Agents make only legal moves; never trust it blindly.
                            g.over = Some(false);
                            g.worker = None;
                            return;
                        }
                    }
                    g.moves += 1;
                    g.last = Some(Choice {
                        before,
                        mv,
                        estimates,
                        took,
                    });
                    if g.state.stack_count() <= 1 {
                        g.over = Some(true);
                    } else if g.state.legal_moves().is_empty() {
                        g.over = Some(false);
                    }
                }
                Poll::Done(Reply::Stuck) => {
                    g.over = Some(g.state.stack_count() <= 1);
                }
                Poll::Pending => {}
                Poll::Stopped => {
                    g.worker = None;
                    g.playing_on = false;
                }
            }
        }
        if g.over.is_some() {
            g.playing_on = false;
            g.worker = None;
            return;
        }
        if g.playing_on && g.worker.as_ref().is_none_or(|w| !w.is_waiting()) {
            let now = Instant::now();
            if now >= g.due {
                ask(g, ctx);
                g.due = now + Duration::from_secs_f32(1.0 / speed.max(0.1));
            } else {
                ctx.request_repaint_after(g.due - now);
            }
        }
    }
}

/// Asks the agent for its next move, starting its thread if need be.
fn ask(g: &mut Watched, ctx: &egui::Context) {
    let w = g
        .worker
        .get_or_insert_with(|| start_worker(&g.spec, &g.state, (g.seed, g.moves), ctx));
    // Nothing is sent while a move is being chosen.
    w.ask(());
}

impl BoafApp {
    pub(super) fn watch_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Watch an agent play");
        let Some((number, c)) = self.open_candidate(ui) else {
            return;
        };
        let Ok(start) = c.state() else {
            ui.label("This candidate's puzzle does not read.");
            return;
        };
        ui.label(format!(
            "Candidate #{number} · {} cards. The agent plays its own game: your game and \
             your play record are not touched.",
            c.n
        ));
        let w = &mut self.watch;
        let kind_before = w.kind;
        ui.horizontal(|ui| {
            let l = ui.label("Agent");
            egui::ComboBox::from_id_salt("watch-agent")
                .selected_text(w.kind.title())
                .show_ui(ui, |ui| {
                    for k in Kind::ALL {
                        ui.selectable_value(&mut w.kind, k, k.title());
                    }
                })
                .response
                .labelled_by(l.id);
            if let Some(unit) = w.kind.budget_unit() {
                let l = ui.label("Budget");
                ui.add(egui::DragValue::new(&mut w.budget).range(1..=w.kind.max_budget()))
                    .labelled_by(l.id);
                ui.label(unit);
            }
            ui.separator();
            let l = ui.label("Speed (moves a second)");
            ui.add(egui::Slider::new(&mut w.speed, 0.2..=20.0).logarithmic(true))
                .labelled_by(l.id)
                .on_hover_text("Moves a second when playing on");
        });
        if w.kind != kind_before {
            w.budget = w.kind.default_budget();
        }
        let fresh = w
            .game
            .as_ref()
            .is_none_or(|g| g.puzzle != c.puzzle || g.spec != w.spec() || g.seed != w.seed());
        if fresh {
            // A new agent or puzzle: a new game (the old agent stops).
            w.new_game(&c.puzzle, &start);
        }
        let Some(g) = w.game.as_mut() else { return };
        let thinking = g.worker.as_ref().is_some_and(Worker::is_waiting);
        let mut restart = false;
        ui.horizontal(|ui| {
            let can_move = g.over.is_none() && !thinking && !g.playing_on;
            if ui
                .add_enabled(can_move, egui::Button::new("Step"))
                .on_hover_text("The agent makes one move")
                .clicked()
            {
                ask(g, ui.ctx());
            }
            if g.playing_on {
                if ui.button("Pause").clicked() {
                    g.playing_on = false;
                }
            } else if ui
                .add_enabled(g.over.is_none(), egui::Button::new("Play on"))
                .on_hover_text("The agent plays on at the chosen speed")
                .clicked()
            {
                g.playing_on = true;
                g.due = Instant::now();
            }
            if ui
                .add_enabled(g.worker.is_some(), egui::Button::new("Stop"))
                .on_hover_text("Stops the agent; the game stays as it is")
                .clicked()
            {
                g.playing_on = false;
                g.worker = None;
            }
            restart = ui.button("Start over").clicked();
            if w.kind.randomised() {
                ui.separator();
                seed_ui(ui, &mut w.seed, &mut w.seed_text);
            }
            if thinking {
                ui.spinner();
                ui.label("thinking…");
            }
        });
        if restart {
            w.new_game(&c.puzzle, &start);
            return;
        }
        let Some(g) = &w.game else { return };
        let status = match g.over {
            Some(true) => format!("Won in {}.", plural(g.moves, "move")),
            Some(false) => format!(
                "Stuck after {} with {} left.",
                plural(g.moves, "move"),
                plural(g.state.stack_count(), "stack")
            ),
            None if g.worker.is_none() && g.moves > 0 => format!(
                "Stopped after {}; Step or Play on goes on with a fresh agent.",
                plural(g.moves, "move")
            ),
            None => format!(
                "{} made · {} left",
                plural(g.moves, "move"),
                plural(g.state.stack_count(), "stack")
            ),
        };
        let status = if w.kind.randomised() {
            format!("{status} · seed {}", g.seed)
        } else {
            status
        };
        ui.label(status);
        // The last move is marked as a hint is in Play: an arrow from the
        // cell it left to the stack it made.
        let light = Highlight {
            selected: None,
            targets: &[],
            hint: g.last.as_ref().map(|c| c.mv),
        };
        let space = board_space(ui);
        ui.horizontal_top(|ui| {
            // Shown, not played: the board belongs to the agent, and clicks
            // on it are ignored.
            let _ = board_ui(ui, &g.state, &light, space);
            // A move of 16 cards can have 40 estimates: they scroll beside
            // the board, which keeps Play's size and place.
            egui::ScrollArea::vertical()
                .id_salt("estimates")
                .max_height(space.y)
                .show(ui, |ui| estimates_ui(ui, g.last.as_ref()));
        });
    }
}

/// The seed field and its "New seed" button; a seed that does not read is
/// named, and the last good one stays in use.
fn seed_ui(ui: &mut egui::Ui, seed: &mut u64, text: &mut String) {
    let l = ui.label("Seed");
    let field = ui
        .add(egui::TextEdit::singleline(text).desired_width(90.0))
        .labelled_by(l.id)
        .on_hover_text("The same seed replays the same game");
    if field.changed()
        && let Ok(v) = text.trim().parse()
    {
        *seed = v;
    }
    if ui
        .button("New seed")
        .on_hover_text("Another seed: another game")
        .clicked()
    {
        // No generator in the app: the clock's nanoseconds, well mixed.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        *seed = boaf_core::hash::splitmix64(*seed ^ u64::from(nanos)) % 1_000_000;
        *text = seed.to_string();
    }
    if text.trim().parse::<u64>().is_err() {
        ui.colored_label(ui.visuals().error_fg_color, "a seed is a whole number");
    }
}

/// Why a move came with no estimates, as the panel says it.
fn unestimated_text(why: Unestimated) -> &'static str {
    match why {
        Unestimated::NotAnEstimator => "No estimates: this agent does not estimate moves.",
        Unestimated::WinningLine => {
            "No estimates: the agent played on the winning line it had found."
        }
        Unestimated::WinInTwo => "No estimates: the agent saw a win within two moves.",
        Unestimated::OnlyMove => "No estimates: only one move was not proven lost.",
        Unestimated::AllLost => {
            "No estimates: every move was proven lost, so the agent took the first."
        }
        Unestimated::GreedyFallback => {
            "No estimates: the search found no solution within its budget, so the agent \
             made the greedy move."
        }
    }
}

/// The agent's last move and what it thought of each legal move.
fn estimates_ui(ui: &mut egui::Ui, last: Option<&Choice>) {
    let Some(c) = last else {
        ui.weak("No move yet. Step, or Play on.");
        return;
    };
    ui.strong(format!(
        "Last move: {} ({:.1} ms)",
        move_text(&c.before, c.mv),
        c.took.as_secs_f64() * 1e3
    ));
    let estimates = match &c.estimates {
        Ok(e) => e,
        Err(why) => {
            ui.weak(unestimated_text(*why));
            return;
        }
    };
    egui::Grid::new("watch-estimates")
        .striped(true)
        .show(ui, |ui| {
            for h in ["move", "visits", "wins", "win share"] {
                ui.strong(h);
            }
            ui.end_row();
            // The most tried first, then the most won.
            let mut shown = estimates.clone();
            shown.sort_by_key(|e| std::cmp::Reverse((e.visits, e.wins)));
            for e in &shown {
                let name = move_text(&c.before, e.mv);
                if e.mv == c.mv {
                    ui.strong(format!("▶ {name}"));
                } else {
                    ui.label(name);
                }
                ui.monospace(e.visits.to_string());
                ui.monospace(e.wins.to_string());
                let share = if e.visits > 0 {
                    format!("{:.1}%", 100.0 * e.wins as f64 / e.visits as f64)
                } else {
                    "—".into()
                };
                ui.monospace(share);
                ui.end_row();
            }
        });
}
