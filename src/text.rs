//! Text quoted back to users: a value from their input is cut short, so that one line of
//! error stays one line a person can read, whatever they wrote.

/// `text` cut to `max_chars` characters, with an ellipsis and the full length when cut.
pub(crate) fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_string(),
        Some((end, _)) => format!("{}… ({} characters)", &text[..end], text.chars().count()),
    }
}

/// The most characters of one word (a run without whitespace) an error message shows.
pub const MAX_WORD_CHARS: usize = 120;

/// The most characters of an error message.
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// `message` with every word longer than [`MAX_WORD_CHARS`] clipped, and the whole clipped
/// to [`MAX_MESSAGE_CHARS`].
pub(crate) fn clip_words(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(MAX_MESSAGE_CHARS));
    let mut rest = message;
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        out.push_str(&clip(&rest[..word_end], MAX_WORD_CHARS));
        rest = &rest[word_end..];
        let space_end = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        out.push_str(&rest[..space_end]);
        rest = &rest[space_end..];
    }
    clip(&out, MAX_MESSAGE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::{clip, clip_words};

    #[test]
    fn long_text_is_cut_with_an_ellipsis_and_its_length() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("abcdefghij", 10), "abcdefghij");
        assert_eq!(clip("abcdefghijk", 10), "abcdefghij… (11 characters)");
        assert_eq!(clip("ééééé", 2), "éé… (5 characters)");
    }

    #[test]
    fn messages_keep_their_short_words_and_lose_the_long_ones() {
        let long = "x".repeat(1_000_000);
        let message = format!("unknown variant `{long}`, expected `a`");
        let clipped = clip_words(&message);
        assert!(clipped.starts_with("unknown variant `xxx"));
        assert!(
            clipped.contains("… (1000003 characters) expected `a`"),
            "{clipped}"
        );
        assert!(clipped.len() < 200);
        let spaced = "ab ".repeat(10_000);
        assert_eq!(
            clip_words(&spaced).chars().count(),
            2_000 + "… (30000 characters)".chars().count()
        );
    }
}
