//! The Generate panel's progress and its queue, driven through the real app
//! with kittest: a finished worker says "done" without a spinner, a run says
//! how long is left, the queue's filter hides the right rows and says how
//! many, the energy columns name their energy, the settings survive a
//! restart, and a fitted energy used at other cards is warned of before
//! Start.

mod common;

use boaf_app::{BoafApp, Tab};
use boaf_core::folder::Folder;
use boaf_core::generator::pipeline::Candidate;
use boaf_core::study::in_progress::{InProgress, Session, write_in_progress};
use common::*;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use std::collections::BTreeSet;
use std::time::Duration;

/// Starts a run of `count` puzzles of `n` cards on `workers` workers.
fn start(h: &mut Harness<'_, BoafApp>, n: usize, count: usize, workers: usize) {
    h.state_mut().set_generation(n, count, 7, workers);
    h.run();
    h.get_by_label("Start").click();
    h.run_steps(2);
    assert!(h.state().is_generating());
}

#[test]
fn a_finished_worker_says_done_with_what_it_made_and_no_spinner() {
    let root = temp_root("done");
    let mut h = harness(&root);
    start(&mut h, 6, 3, 2);
    step_until(&mut h, Duration::from_secs(120), |app| !app.is_generating());
    // Both workers say what they made, and nothing spins.
    let lines: Vec<String> = h
        .query_all_by_label_contains("worker ")
        .filter_map(|n| n.accesskit_node().value())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (w, line) in lines.iter().enumerate() {
        assert!(
            line.starts_with(&format!("worker {}: done, ", w + 1)),
            "{line}"
        );
    }
    let made: usize = lines
        .iter()
        .flat_map(|l| l.split(", ").skip(1))
        .map(|part| {
            part.split(' ')
                .next()
                .unwrap()
                .parse::<usize>()
                .unwrap_or(0)
        })
        .sum();
    assert_eq!(made, 3, "every puzzle is someone's: {lines:?}");
    assert_eq!(
        h.query_all_by_role(egui::Role::ProgressIndicator).count(),
        0
    );
}

#[test]
fn a_run_says_how_long_is_left_once_a_puzzle_is_done() {
    let root = temp_root("left");
    let mut h = harness(&root);
    // Twelve cards, one worker: the later puzzles take seconds more.
    start(&mut h, 12, 3, 1);
    assert!(h.query_by_label_contains("Seed 7 (running)").is_some());
    assert!(
        h.query_by_label_contains(" left").is_none(),
        "none before a puzzle"
    );
    // Stepped by hand: while the run goes on, the spinners never let the
    // app settle.
    let begun = std::time::Instant::now();
    while h.state().candidates().is_empty() {
        assert!(begun.elapsed() < Duration::from_secs(120), "no puzzle made");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    h.step();
    assert!(h.state().is_generating(), "two puzzles still to go");
    let line = h
        .get_by_label_contains("Seed 7 (running)")
        .accesskit_node()
        .value()
        .unwrap();
    assert!(
        line.contains(", about ") && (line.ends_with(" s left") || line.ends_with(" min left")),
        "{line}"
    );
    h.get_by_label("Stop").click();
    step_until(&mut h, Duration::from_secs(60), |app| !app.is_generating());
}

/// The queue numbers of the rows shown ("#3" is candidate 3).
fn rows_shown(h: &Harness<'_, BoafApp>) -> BTreeSet<usize> {
    (1..=h.state().candidates().len())
        .filter(|k| h.query_by_label(&format!("#{k}")).is_some())
        .collect()
}

/// The queue numbers of the candidates that pass `keep`.
fn rows_where(h: &Harness<'_, BoafApp>, keep: impl Fn(&Candidate) -> bool) -> BTreeSet<usize> {
    let all = h.state().candidates().iter().enumerate();
    all.filter(|(_, c)| keep(c)).map(|(i, _)| i + 1).collect()
}

/// Asserts that the queue shows the rows that pass `keep`, and says it hides the others.
fn shows_only(h: &Harness<'_, BoafApp>, keep: impl Fn(&Candidate) -> bool) {
    let want = rows_where(h, keep);
    assert_eq!(rows_shown(h), want);
    let total = h.state().candidates().len();
    let hides = format!("hides {} of {total}", total - want.len());
    assert!(h.query_by_label(&hides).is_some(), "{hides}");
}

#[test]
fn the_filter_hides_the_right_rows_and_says_how_many() {
    let root = temp_root("filter");
    // Six cards under E5 (two or more), one under E3, and eight cards under E5.
    let six: Vec<Candidate> = (1..5).filter_map(|s| made(&root, 6, "E5", s)).collect();
    assert!(six.len() >= 2, "distinct candidates: {}", six.len());
    made(&root, 6, "E3", 1).expect("a new E3 candidate");
    let eight = made(&root, 8, "E5", 1).expect("a new 8-card candidate");
    // The first six-card one is rated, the eight-card one in progress.
    std::fs::create_dir_all(root.join("ratings")).unwrap();
    std::fs::write(
        root.join("ratings/ratings.csv"),
        format!("puzzle,rating\n{},7\n", six[0].puzzle),
    )
    .unwrap();
    let mut session = Session::new(eight.state().unwrap());
    session.hints = 1;
    let games: InProgress = [(eight.puzzle.clone(), session.save(Duration::ZERO))].into();
    write_in_progress(&Folder::new(root.path()).in_progress(), &games).unwrap();

    let mut h = harness(&root);
    h.run();
    let total = h.state().candidates().len();
    assert_eq!(total, six.len() + 2);
    assert_eq!(rows_shown(&h).len(), total);
    assert!(
        h.query_by_label_contains("hides").is_none(),
        "no filter yet"
    );

    filter(&mut h, 0, "8 cards");
    shows_only(&h, |c| c.n == 8);
    filter(&mut h, 0, "all cards");
    filter(&mut h, 1, "E3");
    shows_only(&h, |c| c.energy_name == "E3");
    filter(&mut h, 1, "all energies");
    filter(&mut h, 2, "rated only");
    shows_only(&h, |c| c.puzzle == six[0].puzzle);
    filter(&mut h, 2, "unrated only");
    shows_only(&h, |c| c.puzzle != six[0].puzzle);
    filter(&mut h, 2, "in progress only");
    shows_only(&h, |c| c.puzzle == eight.puzzle);
    assert_eq!(h.query_all_by_label("in progress").count(), 1);
    // Filters combine: in progress at six cards is nothing.
    filter(&mut h, 0, "6 cards");
    assert!(rows_shown(&h).is_empty());
    assert!(
        h.query_by_label(&format!("hides {total} of {total}"))
            .is_some()
    );
}

#[test]
fn the_energy_columns_name_the_energy_and_sort_within_each() {
    let root = temp_root("energy-columns");
    let six: Vec<Candidate> = (1..4).filter_map(|s| made(&root, 6, "E5", s)).collect();
    assert!(six.len() >= 2);
    made(&root, 6, "E3", 1).expect("a new E3 candidate");
    let mut h = harness(&root);
    h.run();
    // Two energies shown: a value column of each row's own energy, which
    // says that values of different energies are not ranked together.
    assert!(h.query_by_label("energy name").is_some());
    assert!(h.query_by_label("energy value").is_some());
    h.get_by_label("energy value").hover();
    for _ in 0..4 {
        h.step();
    }
    assert!(
        h.query_by_label_contains("sorted within each energy")
            .is_some()
    );
    h.hover_at(egui::pos2(1.0, 1.0));
    h.run();
    // One energy shown: the header is its value.
    filter(&mut h, 1, "E5");
    assert!(h.query_by_label("E5 value").is_some());
    assert!(h.query_by_label("energy value").is_none());
    filter(&mut h, 1, "all energies");
    // Sorted by energy: the E3 row first, then the E5 rows by value.
    h.get_by_role_and_label(egui::Role::ComboBox, "sorted by")
        .click();
    h.run();
    h.get_by_role_and_label(egui::Role::Button, "energy")
        .click();
    h.run();
    let queue = h.state().candidates().to_vec();
    let rows: Vec<usize> = h
        .query_all_by_label_contains("#")
        .filter_map(|n| n.accesskit_node().value()?.strip_prefix('#')?.parse().ok())
        .collect();
    assert_eq!(rows.len(), queue.len());
    let names: Vec<&str> = rows
        .iter()
        .map(|&k| queue[k - 1].energy_name.as_str())
        .collect();
    assert_eq!(names[0], "E3", "{names:?}");
    let values: Vec<f64> = rows[1..].iter().map(|&k| queue[k - 1].energy).collect();
    assert!(values.windows(2).all(|w| w[0] <= w[1]), "{values:?}");
}

#[test]
fn the_generate_settings_survive_a_restart_and_a_bad_file_gives_the_defaults() {
    let root = temp_root("settings");
    let mut h = harness(&root);
    h.run();
    let steps = |h: &Harness<'_, BoafApp>| {
        h.get_by_label("Steps per puzzle")
            .accesskit_node()
            .numeric_value()
    };
    let cards = |h: &Harness<'_, BoafApp>| {
        h.get_by_role(egui::Role::Slider)
            .accesskit_node()
            .numeric_value()
    };
    let defaults = (cards(&h), steps(&h));
    assert_eq!(defaults.0, Some(8.0));
    h.get_by_role(egui::Role::Slider).set_value_accesskit(6.0);
    h.run();
    h.get_by_label("Steps per puzzle")
        .set_value_accesskit(123.0);
    h.run();
    assert_eq!((cards(&h), steps(&h)), (Some(6.0), Some(123.0)));
    drop(h);
    let file = Folder::new(root.path()).generate_settings();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("cards = 6") && text.contains("steps = 123"),
        "{text}"
    );

    // A new app over the same folder has them back.
    let mut h = harness(&root);
    h.run();
    assert_eq!((cards(&h), steps(&h)), (Some(6.0), Some(123.0)));
    assert_eq!(h.state().status_text(), None);
    drop(h);

    // A file that does not parse: the defaults, and the status says why.
    std::fs::write(&file, "cards = [").unwrap();
    let mut h = harness(&root);
    h.run();
    assert_eq!((cards(&h), steps(&h)), defaults);
    let status = h.state().status_text().unwrap_or_default().to_string();
    assert!(
        status.starts_with("puzzles/generate.toml: ")
            && status.ends_with("the Generate settings are the defaults"),
        "{status}"
    );
}

#[test]
fn a_fitted_energy_used_at_other_cards_is_warned_of_before_start() {
    let root = temp_root("fit-cards");
    // The example ratings are all of 8 cards; their fit becomes an energy,
    // chosen in the Generate panel.
    std::fs::create_dir_all(root.join("ratings")).unwrap();
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ratings/example.csv");
    std::fs::copy(example, root.join("ratings/example.csv")).unwrap();
    let mut h = harness(&root);
    h.get_by_label("Regression").click();
    h.run();
    h.get_by_label("Use as energy").click();
    h.run();
    let fitted = std::fs::read_to_string(root.join("assets/fitted-energies.toml")).unwrap();
    assert!(fitted.contains("n = [8.0, 8.0]"), "{fitted}");
    h.state_mut().set_tab(Tab::Generate);
    h.run();
    let warning = "⚠ 'fitted' was fitted on ratings of 8 cards: at 16 cards its value \
                   (minus the predicted rating) is an extrapolation.";
    assert!(h.query_by_label_contains("was fitted on ratings").is_none());
    h.get_by_role(egui::Role::Slider).set_value_accesskit(16.0);
    h.run();
    assert!(h.query_by_label(warning).is_some(), "before Start");
    assert!(!h.state().is_generating());
}

#[test]
fn each_row_shows_its_grade_and_the_queue_sorts_by_grade() {
    use boaf_core::agents::grade::Grade;
    let root = temp_root("grades");
    let made_graded: Vec<Candidate> = (1..6)
        .filter_map(|s| made_with(&root, 7, "E5", s, true))
        .collect();
    assert!(made_graded.len() >= 3);
    // One without the difficulty features: no grade.
    made(&root, 6, "E3", 1).expect("an ungraded candidate");
    let mut h = harness(&root);
    h.run();
    assert!(h.query_by_label("grade").is_some());
    let queue = h.state().candidates().to_vec();
    assert_eq!(queue.iter().filter(|c| c.grade().is_none()).count(), 1);
    for g in Grade::ALL {
        let want = queue.iter().filter(|c| c.grade() == Some(g)).count();
        assert_eq!(h.query_all_by_label(g.name()).count(), want, "{g}");
    }
    // Sorted by grade: easiest first, the ungraded row last.
    h.get_by_role_and_label(egui::Role::ComboBox, "sorted by")
        .click();
    h.run();
    h.get_by_role_and_label(egui::Role::Button, "grade").click();
    h.run();
    let rows: Vec<usize> = h
        .query_all_by_label_contains("#")
        .filter_map(|n| n.accesskit_node().value()?.strip_prefix('#')?.parse().ok())
        .collect();
    let grades: Vec<Option<Grade>> = rows.iter().map(|&k| queue[k - 1].grade()).collect();
    assert_eq!(grades.len(), queue.len());
    assert_eq!(grades.last(), Some(&None), "{grades:?}");
    let graded_order: Vec<Grade> = grades.iter().flatten().copied().collect();
    assert!(graded_order.windows(2).all(|w| w[0] <= w[1]), "{grades:?}");
}

/// The pages of a PDF: its page objects (`/Type/Page`, not `/Pages`).
fn pdf_pages(pdf: &[u8]) -> usize {
    let key = b"/Type/Page";
    pdf.windows(key.len() + 1)
        .filter(|w| w.starts_with(key) && w[key.len()] != b's')
        .count()
}

/// The books written under `books/` (and no temporary), by name, with their bytes.
fn the_books(root: &TempDir) -> Vec<(String, Vec<u8>)> {
    let mut books: Vec<_> = std::fs::read_dir(root.join("books"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    books.sort();
    books
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.ends_with(".pdf"), "no temporary: {name}");
            (name, std::fs::read(p).unwrap())
        })
        .collect()
}

#[test]
fn export_book_writes_the_shown_candidates_or_the_ticked_ones() {
    let root = temp_root("book");
    let mut seed = 1;
    let mut made_count = 0;
    while made_count < 5 {
        made_count += usize::from(made(&root, 6, "E5", seed).is_some());
        seed += 1;
    }
    let mut h = harness(&root);
    h.run();
    // None ticked: the five shown, 4 a page: title, 2 puzzle pages, 1 of solutions.
    h.get_by_label("Export book…").click();
    wait_for_label_contains(&mut h, "Wrote a book of 5 puzzles to books/book-");
    let books = the_books(&root);
    assert_eq!(books.len(), 1);
    let (name, pdf) = books[0].clone();
    assert!(
        name.starts_with("book-") && name.ends_with(".pdf"),
        "{name}"
    );
    assert_eq!(pdf_pages(&pdf), 4);
    let first = pdf.clone();
    assert!(
        h.state()
            .status_text()
            .is_some_and(|s| s.contains("Wrote a book of 5 puzzles")),
        "{:?}",
        h.state().status_text()
    );
    // One ticked: a book of that one alone (title, puzzle, solution).
    h.get_all_by_label("book").nth(2).unwrap().click();
    h.run();
    h.get_by_label("Export book…").click();
    wait_for_label_contains(&mut h, "Wrote a book of 1 puzzle to books/book-");
    // A second book of the day is a new file: the first stays as it was.
    let books = the_books(&root);
    let names: Vec<&str> = books.iter().map(|(n, _)| n.as_str()).collect();
    let second = name.replace(".pdf", "-2.pdf");
    assert_eq!(names, [second.as_str(), name.as_str()]);
    assert!(books[1].1 == first, "the first book is unchanged");
    let pdf = books[0].1.clone();
    assert_eq!(pdf_pages(&pdf), 3);
}
