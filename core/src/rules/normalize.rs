//! One spelling per word: every word read from a list, a command line, a history or a tree
//! file goes through [`normalize_word`], so `CRANE` and `crane`, ﾚﾝﾄﾗｰ, れんとらー and
//! レントラー are the same word everywhere.

/// The canonical spelling of a typed or listed word: surrounding spaces removed, ASCII
/// letters in lower case, half-width katakana widened (voicing marks joined: ｶﾞ → ガ), and
/// hiragana turned into katakana. Katakana, lower-case words and other characters are kept.
pub fn normalize_word(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.trim().chars() {
        match ch {
            'A'..='Z' => out.push(ch.to_ascii_lowercase()),
            // Hiragana ぁ..ゖ and the iteration marks ゝゞ sit 0x60 below their katakana.
            '\u{3041}'..='\u{3096}' | '\u{309D}' | '\u{309E}' => {
                out.push(char::from_u32(ch as u32 + 0x60).unwrap_or(ch))
            }
            // Half-width voicing marks join the letter before them when it takes them.
            '\u{FF9E}' | '\u{FF9F}' => {
                let handakuten = ch == '\u{FF9F}';
                match out.pop() {
                    Some(prev) => match voiced(prev, handakuten) {
                        Some(joined) => out.push(joined),
                        None => {
                            out.push(prev);
                            out.push(if handakuten { '゜' } else { '゛' });
                        }
                    },
                    None => out.push(if handakuten { '゜' } else { '゛' }),
                }
            }
            '\u{FF61}'..='\u{FF9D}' => out.push(HALF_WIDTH[(ch as u32 - 0xFF61) as usize]),
            _ => out.push(ch),
        }
    }
    out
}

/// Characters of a typed word an error repeats at most: a word is a few letters, so a longer
/// text is a mistake or an attack, and an error must not carry it back whole.
pub const ECHO_CHARS: usize = 32;

/// `text` as an error repeats it: its first [`ECHO_CHARS`] characters, with `…` when cut.
pub fn echo(text: &str) -> String {
    match text.char_indices().nth(ECHO_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Full-width forms of U+FF61..U+FF9D (｡ to ﾝ), in order.
const HALF_WIDTH: [char; 61] = [
    '。', '「', '」', '、', '・', 'ヲ', 'ァ', 'ィ', 'ゥ', 'ェ', 'ォ', 'ャ', 'ュ', 'ョ', 'ッ', 'ー',
    'ア', 'イ', 'ウ', 'エ', 'オ', 'カ', 'キ', 'ク', 'ケ', 'コ', 'サ', 'シ', 'ス', 'セ', 'ソ', 'タ',
    'チ', 'ツ', 'テ', 'ト', 'ナ', 'ニ', 'ヌ', 'ネ', 'ノ', 'ハ', 'ヒ', 'フ', 'ヘ', 'ホ', 'マ', 'ミ',
    'ム', 'メ', 'モ', 'ヤ', 'ユ', 'ヨ', 'ラ', 'リ', 'ル', 'レ', 'ロ', 'ワ', 'ン',
];

/// The katakana `base` with a dakuten (or, with `handakuten`, a handakuten), if it takes one.
fn voiced(base: char, handakuten: bool) -> Option<char> {
    let code = base as u32;
    if handakuten {
        // ハ ヒ フ ヘ ホ → パ ピ プ ペ ポ (three code points apart, voiced form in between).
        return matches!(base, 'ハ' | 'ヒ' | 'フ' | 'ヘ' | 'ホ')
            .then(|| char::from_u32(code + 2))
            .flatten();
    }
    match base {
        'ウ' => Some('ヴ'),
        'ワ' => Some('ヷ'),
        'ヲ' => Some('ヺ'),
        // カ..ト: every other code point is the voiced form (ッ breaks the pattern at チ/ツ).
        'カ' | 'キ' | 'ク' | 'ケ' | 'コ' | 'サ' | 'シ' | 'ス' | 'セ' | 'ソ' | 'タ' | 'チ'
        | 'ツ' | 'テ' | 'ト' | 'ハ' | 'ヒ' | 'フ' | 'ヘ' | 'ホ' => char::from_u32(code + 1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_word;

    #[test]
    fn case_kana_and_width_are_folded() {
        assert_eq!(normalize_word("  CRANE "), "crane");
        assert_eq!(normalize_word("ﾚﾝﾄﾗｰ"), "レントラー");
        assert_eq!(normalize_word("れんとらー"), "レントラー");
        assert_eq!(normalize_word("ｼﾞｰﾗﾝｽ"), "ジーランス");
        assert_eq!(normalize_word("ﾋﾟｶﾁｭｳ"), "ピカチュウ");
        assert_eq!(normalize_word("ｳﾞ"), "ヴ");
        assert_eq!(normalize_word("ぴかちゅう"), "ピカチュウ");
        assert_eq!(normalize_word("ﾂﾞ"), "ヅ");
        assert_eq!(normalize_word("ﾏﾞ"), "マ゛");
        // Already canonical words are kept as they are.
        for word in [
            "ポリゴンＺ",
            "ニドラン♀",
            "タイプ：ヌル",
            "ポリゴン２",
            "salet",
        ] {
            assert_eq!(normalize_word(word), word);
        }
    }
}
