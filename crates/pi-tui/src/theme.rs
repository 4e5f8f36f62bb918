//! pi's colour themes: the 51 tokens, the built-in `dark` and `light` palettes and the colour
//! mode (truecolor, 256 colours or none) that decides which escape sequences are written.

/// A theme colour value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Color {
    /// The terminal's default colour (`""` in a theme file).
    Default,
    /// A 24-bit colour (`"#rrggbb"`).
    Rgb(u8, u8, u8),
    /// An xterm-256 palette index.
    Indexed(u8),
}

const fn rgb(r: u8, g: u8, b: u8) -> Color {
    Color::Rgb(r, g, b)
}

macro_rules! tokens {
    ($($variant:ident = $name:literal, $dark:expr, $light:expr;)*) => {
        /// One of pi's 51 theme colour tokens.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Token {
            $(
                #[doc = concat!("The `", $name, "` colour.")]
                $variant,
            )*
        }

        impl Token {
            /// Every token, in pi's theme-file order.
            pub const ALL: &'static [Token] = &[$(Token::$variant),*];

            /// The token's key in a theme file (`"mdHeading"`).
            pub fn name(self) -> &'static str {
                match self { $(Token::$variant => $name,)* }
            }

            /// The token for a theme-file key.
            pub fn from_name(name: &str) -> Option<Token> {
                match name { $($name => Some(Token::$variant),)* _ => None }
            }
        }

        const DARK: &[Color] = &[$($dark),*];
        const LIGHT: &[Color] = &[$($light),*];
    };
}

tokens! {
    Accent = "accent", rgb(0x8a, 0xbe, 0xb7), rgb(0x5a, 0x80, 0x80);
    Border = "border", rgb(0x5f, 0x87, 0xff), rgb(0x54, 0x7d, 0xa7);
    BorderAccent = "borderAccent", rgb(0x00, 0xd7, 0xff), rgb(0x5a, 0x80, 0x80);
    BorderMuted = "borderMuted", rgb(0x50, 0x50, 0x50), rgb(0xb0, 0xb0, 0xb0);
    Success = "success", rgb(0xb5, 0xbd, 0x68), rgb(0x58, 0x84, 0x58);
    Error = "error", rgb(0xcc, 0x66, 0x66), rgb(0xaa, 0x55, 0x55);
    Warning = "warning", rgb(0xff, 0xff, 0x00), rgb(0x9a, 0x73, 0x26);
    Muted = "muted", rgb(0x80, 0x80, 0x80), rgb(0x6c, 0x6c, 0x6c);
    Dim = "dim", rgb(0x66, 0x66, 0x66), rgb(0x76, 0x76, 0x76);
    Text = "text", Color::Default, Color::Default;
    ThinkingText = "thinkingText", rgb(0x80, 0x80, 0x80), rgb(0x6c, 0x6c, 0x6c);
    SelectedBg = "selectedBg", rgb(0x3a, 0x3a, 0x4a), rgb(0xd0, 0xd0, 0xe0);
    UserMessageBg = "userMessageBg", rgb(0x34, 0x35, 0x41), rgb(0xe8, 0xe8, 0xe8);
    UserMessageText = "userMessageText", Color::Default, Color::Default;
    CustomMessageBg = "customMessageBg", rgb(0x2d, 0x28, 0x38), rgb(0xed, 0xe7, 0xf6);
    CustomMessageText = "customMessageText", Color::Default, Color::Default;
    CustomMessageLabel = "customMessageLabel", rgb(0x95, 0x75, 0xcd), rgb(0x7e, 0x57, 0xc2);
    ToolPendingBg = "toolPendingBg", rgb(0x28, 0x28, 0x32), rgb(0xe8, 0xe8, 0xf0);
    ToolSuccessBg = "toolSuccessBg", rgb(0x28, 0x32, 0x28), rgb(0xe8, 0xf0, 0xe8);
    ToolErrorBg = "toolErrorBg", rgb(0x3c, 0x28, 0x28), rgb(0xf0, 0xe8, 0xe8);
    ToolTitle = "toolTitle", Color::Default, Color::Default;
    ToolOutput = "toolOutput", rgb(0x80, 0x80, 0x80), rgb(0x6c, 0x6c, 0x6c);
    MdHeading = "mdHeading", rgb(0xf0, 0xc6, 0x74), rgb(0x9a, 0x73, 0x26);
    MdLink = "mdLink", rgb(0x81, 0xa2, 0xbe), rgb(0x54, 0x7d, 0xa7);
    MdLinkUrl = "mdLinkUrl", rgb(0x66, 0x66, 0x66), rgb(0x76, 0x76, 0x76);
    MdCode = "mdCode", rgb(0x8a, 0xbe, 0xb7), rgb(0x5a, 0x80, 0x80);
    MdCodeBlock = "mdCodeBlock", rgb(0xb5, 0xbd, 0x68), rgb(0x58, 0x84, 0x58);
    MdCodeBlockBorder = "mdCodeBlockBorder", rgb(0x80, 0x80, 0x80), rgb(0x6c, 0x6c, 0x6c);
    MdQuote = "mdQuote", rgb(0x80, 0x80, 0x80), rgb(0x6c, 0x6c, 0x6c);
    MdQuoteBorder = "mdQuoteBorder", rgb(0x80, 0x80, 0x80), rgb(0x6c, 0x6c, 0x6c);
    MdHr = "mdHr", rgb(0x80, 0x80, 0x80), rgb(0x6c, 0x6c, 0x6c);
    MdListBullet = "mdListBullet", rgb(0x8a, 0xbe, 0xb7), rgb(0x58, 0x84, 0x58);
    ToolDiffAdded = "toolDiffAdded", rgb(0xb5, 0xbd, 0x68), rgb(0x58, 0x84, 0x58);
    ToolDiffRemoved = "toolDiffRemoved", rgb(0xcc, 0x66, 0x66), rgb(0xaa, 0x55, 0x55);
    ToolDiffContext = "toolDiffContext", rgb(0x80, 0x80, 0x80), rgb(0x6c, 0x6c, 0x6c);
    SyntaxComment = "syntaxComment", rgb(0x6A, 0x99, 0x55), rgb(0x00, 0x80, 0x00);
    SyntaxKeyword = "syntaxKeyword", rgb(0x56, 0x9C, 0xD6), rgb(0x00, 0x00, 0xFF);
    SyntaxFunction = "syntaxFunction", rgb(0xDC, 0xDC, 0xAA), rgb(0x79, 0x5E, 0x26);
    SyntaxVariable = "syntaxVariable", rgb(0x9C, 0xDC, 0xFE), rgb(0x00, 0x10, 0x80);
    SyntaxString = "syntaxString", rgb(0xCE, 0x91, 0x78), rgb(0xA3, 0x15, 0x15);
    SyntaxNumber = "syntaxNumber", rgb(0xB5, 0xCE, 0xA8), rgb(0x09, 0x86, 0x58);
    SyntaxType = "syntaxType", rgb(0x4E, 0xC9, 0xB0), rgb(0x26, 0x7F, 0x99);
    SyntaxOperator = "syntaxOperator", rgb(0xD4, 0xD4, 0xD4), rgb(0x00, 0x00, 0x00);
    SyntaxPunctuation = "syntaxPunctuation", rgb(0xD4, 0xD4, 0xD4), rgb(0x00, 0x00, 0x00);
    ThinkingOff = "thinkingOff", rgb(0x50, 0x50, 0x50), rgb(0xb0, 0xb0, 0xb0);
    ThinkingMinimal = "thinkingMinimal", rgb(0x6e, 0x6e, 0x6e), rgb(0x76, 0x76, 0x76);
    ThinkingLow = "thinkingLow", rgb(0x5f, 0x87, 0xaf), rgb(0x54, 0x7d, 0xa7);
    ThinkingMedium = "thinkingMedium", rgb(0x81, 0xa2, 0xbe), rgb(0x5a, 0x80, 0x80);
    ThinkingHigh = "thinkingHigh", rgb(0xb2, 0x94, 0xbb), rgb(0x87, 0x5f, 0x87);
    ThinkingXhigh = "thinkingXhigh", rgb(0xd1, 0x83, 0xe8), rgb(0x8b, 0x00, 0x8b);
    BashMode = "bashMode", rgb(0xb5, 0xbd, 0x68), rgb(0x58, 0x84, 0x58);
}

/// How colours are written to the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    /// `ESC[38;2;r;g;bm`.
    TrueColor,
    /// Hex colours quantised to the xterm-256 palette.
    Ansi256,
    /// No escape sequences at all (NO_COLOR, TERM=dumb): every style helper returns its input.
    NoColor,
}

impl ColorMode {
    /// Detects the mode from the process environment.
    pub fn detect() -> Self {
        Self::from_env(|k| std::env::var(k).ok())
    }

    /// Detects the mode from an environment lookup (as pi, plus NO_COLOR and TERM=dumb).
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Self {
        if get("NO_COLOR").is_some_and(|v| !v.is_empty()) {
            return Self::NoColor;
        }
        let term = get("TERM").unwrap_or_default();
        if term == "dumb" {
            return Self::NoColor;
        }
        let colorterm = get("COLORTERM").unwrap_or_default();
        if colorterm == "truecolor" || colorterm == "24bit" || get("WT_SESSION").is_some() {
            return Self::TrueColor;
        }
        if term.is_empty()
            || term == "linux"
            || get("TERM_PROGRAM").as_deref() == Some("Apple_Terminal")
            || term == "screen"
            || term.starts_with("screen-")
            || term.starts_with("screen.")
        {
            return Self::Ansi256;
        }
        Self::TrueColor
    }
}

/// A palette of the 51 tokens plus the colour mode used to write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    name: String,
    mode: ColorMode,
    colors: Vec<Color>,
}

impl Theme {
    /// pi's built-in `dark` theme.
    pub fn dark(mode: ColorMode) -> Self {
        Self {
            name: "dark".to_owned(),
            mode,
            colors: DARK.to_vec(),
        }
    }

    /// pi's built-in `light` theme.
    pub fn light(mode: ColorMode) -> Self {
        Self {
            name: "light".to_owned(),
            mode,
            colors: LIGHT.to_vec(),
        }
    }

    /// A built-in theme by name (`dark` or `light`).
    pub fn builtin(name: &str, mode: ColorMode) -> Option<Self> {
        match name {
            "dark" => Some(Self::dark(mode)),
            "light" => Some(Self::light(mode)),
            _ => None,
        }
    }

    /// The default built-in for a `COLORFGBG` value (background index below 8 is dark).
    pub fn default_name(colorfgbg: Option<&str>) -> &'static str {
        let bg = colorfgbg
            .and_then(|v| v.rsplit(';').next())
            .and_then(|b| b.trim().parse::<u8>().ok());
        match bg {
            Some(b) if b >= 8 => "light",
            _ => "dark",
        }
    }

    /// The same palette under another name (custom themes start from a built-in).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The theme's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The colour mode.
    pub fn mode(&self) -> ColorMode {
        self.mode
    }

    /// The same palette written in another mode.
    pub fn with_mode(mut self, mode: ColorMode) -> Self {
        self.mode = mode;
        self
    }

    /// The colour of a token.
    pub fn color(&self, token: Token) -> Color {
        self.colors
            .get(token as usize)
            .copied()
            .unwrap_or(Color::Default)
    }

    /// Overrides one token (custom themes).
    pub fn set_color(&mut self, token: Token, color: Color) {
        if let Some(c) = self.colors.get_mut(token as usize) {
            *c = color;
        }
    }

    /// True when styles are written (not [`ColorMode::NoColor`]).
    pub fn has_color(&self) -> bool {
        self.mode != ColorMode::NoColor
    }

    /// The escape sequence that sets the foreground to `token` (empty without colour).
    pub fn fg_code(&self, token: Token) -> String {
        self.code(token, 38)
    }

    /// The escape sequence that sets the background to `token` (empty without colour).
    pub fn bg_code(&self, token: Token) -> String {
        self.code(token, 48)
    }

    fn code(&self, token: Token, base: u8) -> String {
        match (self.mode, self.color(token)) {
            (ColorMode::NoColor, _) => String::new(),
            (_, Color::Default) => format!("\x1b[{}m", base + 1),
            (_, Color::Indexed(i)) => format!("\x1b[{base};5;{i}m"),
            (ColorMode::TrueColor, Color::Rgb(r, g, b)) => format!("\x1b[{base};2;{r};{g};{b}m"),
            (ColorMode::Ansi256, Color::Rgb(r, g, b)) => {
                format!("\x1b[{base};5;{}m", rgb_to_256(r, g, b))
            }
        }
    }

    /// `text` in the token's foreground colour (resets only the foreground after).
    pub fn fg(&self, token: Token, text: &str) -> String {
        self.wrap(&self.fg_code(token), text, "\x1b[39m")
    }

    /// `text` on the token's background colour (resets only the background after).
    pub fn bg(&self, token: Token, text: &str) -> String {
        self.wrap(&self.bg_code(token), text, "\x1b[49m")
    }

    /// Bold text.
    pub fn bold(&self, text: &str) -> String {
        self.wrap("\x1b[1m", text, "\x1b[22m")
    }

    /// Italic text.
    pub fn italic(&self, text: &str) -> String {
        self.wrap("\x1b[3m", text, "\x1b[23m")
    }

    /// Underlined text.
    pub fn underline(&self, text: &str) -> String {
        self.wrap("\x1b[4m", text, "\x1b[24m")
    }

    /// Reverse-video text.
    pub fn inverse(&self, text: &str) -> String {
        self.wrap("\x1b[7m", text, "\x1b[27m")
    }

    /// Struck-through text.
    pub fn strikethrough(&self, text: &str) -> String {
        self.wrap("\x1b[9m", text, "\x1b[29m")
    }

    fn wrap(&self, open: &str, text: &str, close: &str) -> String {
        if !self.has_color() || open.is_empty() {
            return text.to_owned();
        }
        let mut s = String::with_capacity(open.len() + text.len() + close.len());
        s.push_str(open);
        s.push_str(text);
        s.push_str(close);
        s
    }
}

const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

fn nearest(values: impl Iterator<Item = i32>, v: i32) -> usize {
    let mut best = (i32::MAX, 0);
    for (i, c) in values.enumerate() {
        let d = (v - c).abs();
        if d < best.0 {
            best = (d, i);
        }
    }
    best.1
}

fn distance(a: (i32, i32, i32), b: (i32, i32, i32)) -> f64 {
    let (dr, dg, db) = (
        f64::from(a.0 - b.0),
        f64::from(a.1 - b.1),
        f64::from(a.2 - b.2),
    );
    dr * dr * 0.299 + dg * dg * 0.587 + db * db * 0.114
}

/// Quantises a 24-bit colour to the nearest xterm-256 cube or grey entry, as pi does.
pub fn rgb_to_256(r: u8, g: u8, b: u8) -> u8 {
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    let cube = |v| nearest(CUBE.iter().map(|&c| i32::from(c)), v);
    let (ri, gi, bi) = (cube(r), cube(g), cube(b));
    let cv = |i: usize| i32::from(CUBE[i]);
    let cube_dist = distance((r, g, b), (cv(ri), cv(gi), cv(bi)));
    let cube_index = 16 + 36 * ri + 6 * gi + bi;
    let gray = (0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b)).round() as i32;
    let gray_i = nearest((0..24).map(|i| 8 + i * 10), gray);
    let gv = 8 + 10 * gray_i as i32;
    let gray_dist = distance((r, g, b), (gv, gv, gv));
    let spread = r.max(g).max(b) - r.min(g).min(b);
    let index = if spread < 10 && gray_dist < cube_dist {
        232 + gray_i
    } else {
        cube_index
    };
    u8::try_from(index).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_51_tokens_with_names() {
        assert_eq!(Token::ALL.len(), 51);
        assert_eq!(DARK.len(), 51);
        assert_eq!(LIGHT.len(), 51);
        for t in Token::ALL {
            assert_eq!(Token::from_name(t.name()), Some(*t));
        }
    }

    #[test]
    fn dark_values_match_pi() {
        let t = Theme::dark(ColorMode::TrueColor);
        assert_eq!(t.color(Token::Accent), Color::Rgb(0x8a, 0xbe, 0xb7));
        assert_eq!(t.color(Token::Text), Color::Default);
        assert_eq!(t.fg(Token::Error, "x"), "\x1b[38;2;204;102;102mx\x1b[39m");
        assert_eq!(t.fg(Token::Text, "x"), "\x1b[39mx\x1b[39m");
        assert_eq!(
            t.bg(Token::UserMessageBg, "x"),
            "\x1b[48;2;52;53;65mx\x1b[49m"
        );
        assert_eq!(t.bold("x"), "\x1b[1mx\x1b[22m");
    }

    #[test]
    fn ansi256_quantises_like_pi() {
        let t = Theme::dark(ColorMode::Ansi256);
        assert_eq!(t.fg(Token::Border, "x"), "\x1b[38;5;69mx\x1b[39m");
        assert_eq!(rgb_to_256(0x80, 0x80, 0x80), 244);
        assert_eq!(rgb_to_256(0xff, 0xff, 0x00), 226);
    }

    #[test]
    fn no_color_is_plain() {
        let t = Theme::light(ColorMode::NoColor);
        assert_eq!(t.fg(Token::Accent, "x"), "x");
        assert_eq!(t.bold("x"), "x");
        assert_eq!(t.fg_code(Token::Accent), "");
    }

    #[test]
    fn mode_detection() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(
            ColorMode::from_env(env(&[("TERM", "dumb")])),
            ColorMode::NoColor
        );
        assert_eq!(
            ColorMode::from_env(env(&[("NO_COLOR", "1"), ("COLORTERM", "truecolor")])),
            ColorMode::NoColor
        );
        assert_eq!(
            ColorMode::from_env(env(&[("TERM", "linux")])),
            ColorMode::Ansi256
        );
        assert_eq!(
            ColorMode::from_env(env(&[("TERM", "screen-256color")])),
            ColorMode::Ansi256
        );
        assert_eq!(
            ColorMode::from_env(env(&[("TERM", "xterm-256color")])),
            ColorMode::TrueColor
        );
        assert_eq!(Theme::default_name(Some("15;0")), "dark");
        assert_eq!(Theme::default_name(Some("0;15")), "light");
    }
}
