//! BERT's uncased WordPiece tokenizer: clean, split CJK ideographs and punctuation,
//! lower-case and strip accents, then greedy longest-match pieces from `vocab.txt`.
//! Written here (not the `tokenizers` crate) because this is all a BERT vocabulary
//! needs, and it keeps the build small.

use std::collections::HashMap;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Words longer than this become `[UNK]`, as in BERT.
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary with BERT's special tokens.
#[derive(Debug)]
pub struct WordPiece {
    ids: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
}

impl WordPiece {
    /// Reads `vocab.txt` (one token per line; the line number is its id).
    ///
    /// # Errors
    /// A message naming the missing special token.
    pub fn from_vocab(text: &str) -> Result<WordPiece, String> {
        let ids: HashMap<String, u32> = text
            .lines()
            .enumerate()
            .map(|(i, t)| (t.trim_end_matches('\r').to_string(), i as u32))
            .collect();
        let special = |t: &str| {
            ids.get(t)
                .copied()
                .ok_or_else(|| format!("vocab.txt has no {t} token"))
        };
        Ok(WordPiece {
            unk: special("[UNK]")?,
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            ids,
        })
    }

    /// Number of tokens in the vocabulary.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the vocabulary is empty (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// `[CLS] pieces… [SEP]`, truncated to `max_len` ids in all.
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let budget = max_len.max(2) - 2;
        let mut out = vec![self.cls];
        for word in basic_words(text) {
            if out.len() > budget {
                break;
            }
            self.push_pieces(&word, &mut out);
        }
        out.truncate(budget + 1);
        out.push(self.sep);
        out
    }

    /// Greedy longest-match pieces of one word; `[UNK]` when any part has no piece.
    fn push_pieces(&self, word: &str, out: &mut Vec<u32>) {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let mark = out.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while end > start {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[from..to]);
                if let Some(&id) = self.ids.get(piece.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => out.push(id),
                None => {
                    out.truncate(mark);
                    out.push(self.unk);
                    return;
                }
            }
            start = end;
        }
    }
}

/// BERT's basic tokenizer: words and single punctuation marks, lower-cased, no accents.
pub(crate) fn basic_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, words: &mut Vec<String>| {
        if !cur.is_empty() {
            words.push(std::mem::take(cur));
        }
    };
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        if c.is_whitespace() {
            flush(&mut cur, &mut words);
        } else if is_cjk(c) || is_punctuation(c) {
            flush(&mut cur, &mut words);
            words.push(c.to_string());
        } else {
            for l in c.to_lowercase() {
                // NFD then drop combining marks: "café" -> "cafe".
                cur.extend(std::iter::once(l).nfd().filter(|m| !is_combining_mark(*m)));
            }
        }
    }
    flush(&mut cur, &mut words);
    words
}

/// CJK ideographs are split into single characters, as BERT's vocabulary expects.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// ASCII symbols count as punctuation (BERT's rule); beyond ASCII, Unicode's
/// punctuation (P*) blocks, while symbols such as `™` or `€` stay inside words.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(c as u32,
        0xA1 | 0xA7 | 0xAB | 0xB6 | 0xB7 | 0xBB | 0xBF | 0x37E | 0x387
        | 0x2010..=0x2027 | 0x2030..=0x205E | 0x2E00..=0x2E7F | 0x3001..=0x3003
        | 0x3008..=0x3011 | 0x3014..=0x301F | 0xFE10..=0xFE19 | 0xFE30..=0xFE4F
        | 0xFF01..=0xFF03 | 0xFF05..=0xFF0A | 0xFF0C..=0xFF0F | 0xFF1A | 0xFF1B
        | 0xFF1F | 0xFF20 | 0xFF3B..=0xFF3D | 0xFF3F | 0xFF5B | 0xFF5D | 0xFF5F..=0xFF65)
        && !matches!(c as u32, 0x2044 | 0x2052)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        let v = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nget\n##ting\nweather\nfore\n##cast\n,\ncafe\n天\n气\nun\n##want\n##ed";
        WordPiece::from_vocab(v).unwrap()
    }

    #[test]
    fn splits_punctuation_cjk_and_strips_accents() {
        assert_eq!(
            basic_words("Getting  the Café-forecast,天气!"),
            ["getting", "the", "cafe", "-", "forecast", ",", "天", "气", "!"]
        );
        assert_eq!(basic_words("weather™ «ok»"), ["weather™", "«", "ok", "»"]);
        assert!(basic_words("").is_empty());
        assert!(basic_words("\u{0}\u{7}  ").is_empty());
    }

    #[test]
    fn greedy_longest_match_with_unknown_words() {
        let v = vocab();
        // getting = get ##ting; forecast = fore ##cast; "the" is unknown.
        assert_eq!(v.encode("Getting the forecast", 64), [2, 4, 5, 1, 7, 8, 3]);
        assert_eq!(v.encode("unwanted", 64), [2, 13, 14, 15, 3]);
        assert_eq!(v.encode("天气, café", 64), [2, 11, 12, 9, 10, 3]);
        // A word with an unmatchable tail is one [UNK], not a partial word.
        assert_eq!(v.encode("unwantedx", 64), [2, 1, 3]);
    }

    #[test]
    fn truncates_to_the_budget_keeping_sep() {
        let v = vocab();
        assert_eq!(v.encode("weather weather weather weather", 4), [2, 6, 6, 3]);
        assert_eq!(v.encode("getting", 3), [2, 4, 3]);
        assert_eq!(v.encode("", 8), [2, 3]);
    }

    #[test]
    fn missing_special_token_is_an_error() {
        let err = WordPiece::from_vocab("[PAD]\n[UNK]\n[CLS]").unwrap_err();
        assert!(err.contains("[SEP]"), "{err}");
    }
}
