//! The bounds on what raters and designers send: study names, nicknames,
//! participant ids and notes. Each check returns the text to keep, or a
//! message that says what is wrong.

/// The longest nickname, in characters.
pub const MAX_NICKNAME: usize = 40;
/// The longest notes, in characters.
pub const MAX_NOTES: usize = 2_000;
/// The longest study name or participant id, in characters.
pub const MAX_NAME: usize = 64;

/// Whether a name is 1 to [`MAX_NAME`] letters, digits, `-` and `_` (so it
/// goes into a link as it is).
fn is_plain_name(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= MAX_NAME
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A study name: letters, digits, `-` and `_`, at most [`MAX_NAME`].
pub fn check_study_name(name: &str) -> Result<(), String> {
    if is_plain_name(name) {
        Ok(())
    } else {
        Err(format!(
            "a study name is 1 to {MAX_NAME} letters, digits, '-' and '_', not {name:?}"
        ))
    }
}

/// An external participant id (as Prolific's PROLIFIC_PID): the same
/// characters as a study name.
pub fn check_pid(pid: &str) -> Result<(), String> {
    if is_plain_name(pid) {
        Ok(())
    } else {
        Err(format!(
            "a participant id is 1 to {MAX_NAME} letters, digits, '-' and '_'"
        ))
    }
}

/// A nickname, trimmed: at most [`MAX_NICKNAME`] characters, no control
/// characters (it may be empty).
pub fn check_nickname(nickname: &str) -> Result<String, String> {
    let nickname = nickname.trim();
    if nickname.chars().count() > MAX_NICKNAME {
        return Err(format!("a nickname has at most {MAX_NICKNAME} characters"));
    }
    if nickname.chars().any(char::is_control) {
        return Err("a nickname has no control characters".into());
    }
    Ok(nickname.to_string())
}

/// Notes: at most [`MAX_NOTES`] characters; new lines and tabs are the only
/// control characters.
pub fn check_notes(notes: &str) -> Result<(), String> {
    if notes.chars().count() > MAX_NOTES {
        return Err(format!("notes have at most {MAX_NOTES} characters"));
    }
    if let Some(c) = notes
        .chars()
        .find(|&c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(format!(
            "notes have no control characters but new lines and tabs, not U+{:04X}",
            c as u32
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bound_says_what_is_wrong() {
        assert!(check_study_name("pilot-1_b").is_ok());
        for bad in ["", "a b", "x/y", "é", &"a".repeat(65)] {
            assert!(check_study_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_pid("5f3c9a").is_ok() && check_pid("a&b").is_err());
        assert_eq!(check_nickname("  Ann ").unwrap(), "Ann");
        assert!(check_nickname(&"n".repeat(41)).is_err());
        assert!(check_nickname("a\u{7}").unwrap_err().contains("control"));
        assert!(check_notes("line one\n\tline two, \"<script>\" =1+1").is_ok());
        assert!(check_notes(&"x".repeat(2_001)).is_err());
        assert!(check_notes("a\u{0}b").unwrap_err().contains("U+0000"));
        assert!(check_notes("a\rb").is_err());
    }
}
