//! How text becomes index terms. Pure functions, shared by indexing and querying so both sides always agree.
//!
//! - **Grams** answer exact substring questions: every character and every pair of adjacent characters of a
//!   field's folded text, prefixed with the field name. A text that contains a needle holds every gram of the
//!   needle, so the documents holding them all are a superset of the answer; the caller confirms each candidate
//!   against the record, which makes the result exactly a SQL `LIKE '%v%'`.
//! - **Words** rank free-text searches: jieba's search-mode segmentation of Chinese, Latin and digit runs as they
//!   are, and for names the pinyin spelling and initials (`zhangsan`, `zs` for 张三).
use std::sync::OnceLock;

use pinyin::ToPinyin;

/// Separates the field name from the gram in a gram term.
pub const SEP: char = '\u{1f}';

/// The folding applied to text before grams are taken: lower case character by character (as `str::to_lowercase`
/// does, with the final sigma folded to σ so that the folding does not depend on context). Substring containment
/// under `str::to_lowercase` implies containment after this folding, so grams never lose a match.
pub fn fold(text: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        for l in c.to_lowercase() {
            out.push(if l == 'ς' { 'σ' } else { l });
        }
    }
    out
}

/// The terms of one field's text, for the positional `grams` field: each adjacent pair of folded characters at
/// the position of its first character (from `base`), under the field's prefix and under the empty prefix (a
/// free-text search matches a fragment in any field). A needle of three or more characters is then a phrase of
/// its pairs at consecutive positions: an exact substring match, never a pair from elsewhere in the text.
/// Returns the tokens in position order and the position after the text (with a gap, so two values never join).
pub fn pairs(field: &str, text: &str, base: usize, out: &mut Vec<(usize, String)>) -> usize {
    let chars = fold(text);
    for (i, w) in chars.windows(2).enumerate() {
        out.push((base + i, term(field, &[w[0], w[1]])));
        out.push((base + i, term("", &[w[0], w[1]])));
    }
    base + chars.len() + 2
}

/// The single-character terms of a field's text (for one-character needles), under the field's prefix and the
/// empty one.
pub fn chars(field: &str, text: &str, out: &mut Vec<String>) {
    for c in fold(text) {
        out.push(term(field, &[c]));
        out.push(term("", &[c]));
    }
}

/// `{field}{SEP}{chars}` (as `format!` would make it, without `fmt`: four terms per character of every record).
fn term(field: &str, chars: &[char]) -> String {
    let mut t = String::with_capacity(field.len() + 1 + 4 * chars.len());
    t.push_str(field);
    t.push(SEP);
    t.extend(chars);
    t
}

/// What a text containing `needle` must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeedleTerms {
    /// Empty needle: every text contains it.
    All,
    /// One character: this `chars` term.
    Char(String),
    /// Two or more characters: these `grams` terms at consecutive positions.
    Pairs(Vec<String>),
}

/// The terms a text of `field` (empty: any field) containing `needle` holds.
pub fn needle_terms(field: &str, needle: &str) -> NeedleTerms {
    let chars = fold(needle);
    match chars.len() {
        0 => NeedleTerms::All,
        1 => NeedleTerms::Char(format!("{field}{SEP}{}", chars[0])),
        _ => NeedleTerms::Pairs(chars.windows(2).map(|w| format!("{field}{SEP}{}{}", w[0], w[1])).collect()),
    }
}

fn jieba() -> &'static jieba_rs::Jieba {
    static J: OnceLock<jieba_rs::Jieba> = OnceLock::new();
    J.get_or_init(jieba_rs::Jieba::new)
}

/// Whether a token carries meaning (jieba emits whitespace and punctuation as tokens of their own).
fn meaningful(t: &str) -> bool {
    t.chars().any(char::is_alphanumeric)
}

/// Ranking words of a text: jieba's search-mode tokens, lower-cased, without whitespace or punctuation tokens.
pub fn words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut out: Vec<String> =
        jieba().cut_for_search(&lower, true).into_iter().map(|t| t.word.trim()).filter(|w| meaningful(w)).map(str::to_string).collect();
    out.sort();
    out.dedup();
    out
}

/// Pinyin words of a person's or company's name: the full spelling, the initials, and each syllable; and how
/// people type a long name's start — the initials of its first two, three, … characters (`xbk` for 星巴克新街口店,
/// `wk` for 万科城市之光) and its spelling to a syllable's end (`wanke`). Characters without a reading (Latin,
/// digits) are kept as they are in the spelling.
pub fn pinyin_words(name: &str) -> Vec<String> {
    let mut full = String::new();
    let mut initials = String::new();
    let mut out = Vec::new();
    let mut any = false;
    for (c, p) in name.chars().zip(name.to_pinyin()) {
        match p {
            Some(p) => {
                any = true;
                full.push_str(p.plain());
                initials.push_str(p.first_letter());
                out.push(p.plain().to_string());
            }
            None if c.is_alphanumeric() => {
                for l in c.to_lowercase() {
                    full.push(l);
                    initials.push(l);
                }
            }
            None => {}
        }
        // The starts: after each character of the name, once two letters of initials are there.
        if any && initials.chars().count() >= 2 {
            out.push(initials.clone());
            out.push(full.clone());
        }
    }
    if !any {
        return Vec::new();
    }
    out.push(full);
    out.push(initials);
    out.sort();
    out.dedup();
    out
}

/// A name's pinyin initials and full spelling (`kqgl`, `kaoqinguanli` for 考勤管理), for a name with a
/// Chinese character; Latin letters and digits are kept, the rest left out.
pub fn initials_and_spelling(name: &str) -> Option<(String, String)> {
    let (mut initials, mut full, mut any) = (String::new(), String::new(), false);
    for (c, p) in name.chars().zip(name.to_pinyin()) {
        match p {
            Some(p) => {
                any = true;
                initials.push_str(p.first_letter());
                full.push_str(p.plain());
            }
            None if c.is_ascii_alphanumeric() => {
                initials.push(c.to_ascii_lowercase());
                full.push(c.to_ascii_lowercase());
            }
            None => {}
        }
    }
    any.then_some((initials, full))
}

/// Whether a record's searchable text answers a free-text query as `Index::search` does: every
/// whitespace-separated part of `q` is a fragment of one of the `fields` (under `fold`), or one of the record's
/// words (jieba words of the fields, pinyin words of the `names`). The record test behind a list's keyword.
pub fn matches(fields: &[&str], names: &[&str], q: &str) -> bool {
    let folded: Vec<Vec<char>> = fields.iter().map(|f| fold(f)).collect();
    let mut words_of: Option<Vec<String>> = None;
    q.split_whitespace().all(|part| {
        let needle = fold(part);
        if folded.iter().any(|f| needle.len() <= f.len() && f.windows(needle.len().max(1)).any(|w| w == &needle[..])) {
            return true;
        }
        let words = words_of.get_or_insert_with(|| {
            let mut w: Vec<String> = fields.iter().flat_map(|f| words(f)).collect();
            w.extend(names.iter().flat_map(|n| pinyin_words(n)));
            w
        });
        let lower = part.to_lowercase();
        words.contains(&lower)
    })
}

/// `text` with each occurrence of any of `parts` (matched on the folded text) wrapped in `<em>`…`</em>`, HTML
/// escaped, cut to about `max` characters around the first match.
pub fn highlight(text: &str, parts: &[String], max: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    // Folding can change the number of characters (rarely); fall back to no marks then.
    let folded = fold(text);
    let mut marks = vec![false; chars.len()];
    if folded.len() == chars.len() {
        for p in parts {
            let needle = fold(p);
            if needle.is_empty() || needle.len() > folded.len() {
                continue;
            }
            for i in 0..=folded.len() - needle.len() {
                if folded[i..i + needle.len()] == needle[..] {
                    marks[i..i + needle.len()].iter_mut().for_each(|m| *m = true);
                }
            }
        }
    }
    let first = marks.iter().position(|m| *m).unwrap_or(0);
    let start = first.saturating_sub(max / 3);
    let end = (start + max).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut open = false;
    for i in start..end {
        if marks[i] && !open {
            out.push_str("<em>");
            open = true;
        } else if !marks[i] && open {
            out.push_str("</em>");
            open = false;
        }
        match chars[i] {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    if open {
        out.push_str("</em>");
    }
    if end < chars.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_needle_is_a_run_of_the_pairs_a_text_holds() {
        let text = "订单超时时间 Order TIMEOUT";
        let mut toks = Vec::new();
        pairs("f", text, 0, &mut toks);
        for needle in ["超时", "时间 o", "timeout", "ORDER t"] {
            let NeedleTerms::Pairs(ps) = needle_terms("f", needle) else { panic!("{needle}") };
            let at = toks.iter().find(|(_, t)| *t == ps[0]).map(|(p, _)| *p).unwrap();
            for (k, p) in ps.iter().enumerate() {
                assert!(toks.contains(&(at + k, p.clone())), "{needle}: {p} at {}", at + k);
            }
        }
        assert_eq!(needle_terms("f", ""), NeedleTerms::All);
        assert_eq!(needle_terms("f", "单"), NeedleTerms::Char(format!("f{SEP}单")));
    }

    #[test]
    fn jieba_words_drop_whitespace_and_punctuation() {
        let w = words("北京 装修公司，2026年 Office");
        assert!(w.iter().all(|t| !t.trim().is_empty() && t.chars().any(char::is_alphanumeric)), "{w:?}");
        assert!(w.contains(&"装修".to_string()) || w.contains(&"装修公司".to_string()), "{w:?}");
        assert!(w.contains(&"office".to_string()), "{w:?}");
    }

    #[test]
    fn names_get_spelling_and_initials() {
        let w = pinyin_words("张三");
        for t in ["zhangsan", "zs", "zhang", "san"] {
            assert!(w.contains(&t.to_string()), "{w:?}");
        }
        assert!(pinyin_words("ACME").is_empty());
        assert!(pinyin_words("华为A2").contains(&"huaweia2".to_string()));
    }

    #[test]
    fn a_menus_initials_and_spelling() {
        assert_eq!(initials_and_spelling("考勤管理"), Some(("kqgl".into(), "kaoqinguanli".into())));
        assert_eq!(initials_and_spelling("OSS 配置"), Some(("osspz".into(), "osspeizhi".into())));
        assert_eq!(initials_and_spelling("Attendance"), None);
    }

    #[test]
    fn a_long_name_is_found_by_how_its_start_is_typed() {
        let w = pinyin_words("星巴克新街口店");
        for t in ["xb", "xbk", "xbkxjk", "xbkxjkd", "xingba", "xingbake", "xingbakexinjiekoudian", "jie"] {
            assert!(w.contains(&t.to_string()), "{t}: {w:?}");
        }
        // Not the middle of the initials, nor one letter, nor a spelling cut inside a syllable.
        for t in ["x", "kxj", "xingb"] {
            assert!(!w.contains(&t.to_string()), "{t}: {w:?}");
        }
        assert!(pinyin_words("万科城市之光").contains(&"wk".to_string()));
        assert!(matches(&["万科城市之光外立面清洗"], &["万科城市之光外立面清洗"], "wkcs"));
    }

    #[test]
    fn highlight_marks_and_escapes() {
        assert_eq!(highlight("订单<超时>时间", &["超时".into()], 50), "订单&lt;<em>超时</em>&gt;时间");
        assert_eq!(highlight("Order Timeout", &["timeout".into()], 50), "Order <em>Timeout</em>");
    }
}
