//! Metric labels: label sets, their JSONB text, and merging them, with
//! libpcp's exact answers (`labels.c`).
//!
//! A label set is a JSON object (`{"hostname":"box","agent":"linux"}`)
//! held in libpcp's compact "JSONB" form, with an index of its labels
//! (name and value offsets into the text, and flags). Labels come in six
//! levels of increasing precedence: context, domain, instance domain,
//! cluster, item and instance; merging sets lets the later level's value
//! win for a name found in more than one.
//!
//! Parsing follows libpcp's tokenizer and its quirks (see `json`): names
//! must start with a letter and hold letters, digits and `_` (and `.` in
//! already-merged text), at most 254 bytes; objects nest (a label
//! `{"a":{"b":1}}` is named `a.b`); duplicate names are refused. Where
//! libpcp's result depends on its own slips (a third nesting level names
//! its labels from the first level only, for one) the result here is the
//! same.

mod json;

use crate::error::{PmError, PmResult};
use crate::ids::PM_IN_NULL;
use crate::support::hash::PmHash;
use std::cmp::Ordering;

/// `PM_MAXLABELS`: the most labels a set may have.
pub const PM_MAXLABELS: usize = 255;
/// `PM_MAXLABELJSONLEN`: the longest JSONB text of a label set, and the
/// size of the buffers libpcp merges into.
pub const PM_MAXLABELJSONLEN: usize = 65535;
/// `MAXLABELNAMELEN`: label names must be shorter than this.
const MAXLABELNAMELEN: usize = 255;
/// Labels a parse or merge may hold: six levels of `PM_MAXLABELS`.
const MAXLABELSET: usize = PM_MAXLABELS * 6;
const MAX_RECURSION_DEPTH: usize = 256;
const MAX_DESCENT_LEVEL: usize = 64;

const EINVAL: PmError = PmError::from_errno(22);
const E2BIG: PmError = PmError::from_errno(7);

/// Label flag and type bits (`PM_LABEL_*`).
pub mod flags {
    /// `PM_LABEL_CONTEXT`.
    pub const CONTEXT: u8 = 1 << 0;
    /// `PM_LABEL_DOMAIN`.
    pub const DOMAIN: u8 = 1 << 1;
    /// `PM_LABEL_INDOM`.
    pub const INDOM: u8 = 1 << 2;
    /// `PM_LABEL_CLUSTER`.
    pub const CLUSTER: u8 = 1 << 3;
    /// `PM_LABEL_ITEM`.
    pub const ITEM: u8 = 1 << 4;
    /// `PM_LABEL_INSTANCES`.
    pub const INSTANCES: u8 = 1 << 5;
    /// `PM_LABEL_COMPOUND`: the name has several parts (`a.b`).
    pub const COMPOUND: u8 = 1 << 6;
    /// `PM_LABEL_OPTIONAL`: an extrinsic label, not part of a metric's
    /// identity.
    pub const OPTIONAL: u8 = 1 << 7;
}

/// One label's place in its set's JSONB text (`pmLabel`). The fields have
/// the C bit-field widths; offsets count from the start of the text.
#[doc(alias = "pmLabel")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Label {
    /// Offset of the name.
    pub name: u16,
    /// Length of the name.
    pub namelen: u8,
    /// `flags::*` bits.
    pub flags: u8,
    /// Offset of the value.
    pub value: u16,
    /// Length of the value.
    pub valuelen: u16,
}

/// The full names of compound labels, by name offset (libpcp keeps these
/// beside a set whose labels came from nested objects).
pub type CompoundNames = PmHash<Vec<u8>>;

/// A label set (`pmLabelSet`): JSONB text and the index of its labels.
#[doc(alias = "pmLabelSet")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSet {
    /// The instance for instance labels, else `PM_IN_NULL`.
    pub inst: i32,
    /// How many labels (`labels.len()`, or a negative error code for a
    /// set a PMDA could not supply).
    pub nlabels: i32,
    /// The JSONB text.
    pub json: Vec<u8>,
    /// The labels, sorted by name.
    pub labels: Vec<Label>,
    /// Full names of compound labels (libpcp's `compound` flag and `hash`).
    pub names: Option<CompoundNames>,
}

/// The C string starting at `off` of `buf`: bytes up to a NUL or the end
/// (reads past the end see NUL).
fn c_at(buf: &[u8], off: usize) -> &[u8] {
    let s = buf.get(off..).unwrap_or(&[]);
    &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())]
}

/// `strncmp`, on byte strings that end in NUL at their ends.
fn strncmp(a: &[u8], b: &[u8], n: usize) -> i32 {
    for k in 0..n {
        let (ca, cb) = (a.get(k).copied().unwrap_or(0), b.get(k).copied().unwrap_or(0));
        if ca != cb {
            return i32::from(ca) - i32::from(cb);
        }
        if ca == 0 {
            break;
        }
    }
    0
}

/// What `%.*s` prints of `s` with precision `n`.
fn prec(s: &[u8], n: usize) -> &[u8] {
    let s = &s[..n.min(s.len())];
    &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())]
}

/// A label's name as libpcp reads it: the compound name when the set keeps
/// one for this label, else the text at the name offset (a C string: it
/// runs on past the name), with the length to compare.
fn name_of<'a>(l: &Label, json: &'a [u8], names: Option<&'a CompoundNames>) -> (&'a [u8], usize) {
    if l.flags & flags::COMPOUND != 0 {
        if let Some(full) = names.and_then(|h| h.search(u32::from(l.name))) {
            return (c_at(full, 0), c_at(full, 0).len());
        }
    }
    (c_at(json, usize::from(l.name)), usize::from(l.namelen))
}

/// libpcp's label name order (`namecmp6`): by the common prefix, then the
/// longer name last; lengths are the stored 8-bit ones.
fn namecmp(
    a: &Label,
    ajson: &[u8],
    anames: Option<&CompoundNames>,
    b: &Label,
    bjson: &[u8],
    bnames: Option<&CompoundNames>,
) -> i32 {
    match a.namelen.cmp(&b.namelen) {
        Ordering::Greater => {
            let (bn, blen) = name_of(b, bjson, bnames);
            match strncmp(name_of(a, ajson, anames).0, bn, blen) {
                0 => 1,
                s => s,
            }
        }
        Ordering::Less => {
            let (an, alen) = name_of(a, ajson, anames);
            match strncmp(an, name_of(b, bjson, bnames).0, alen) {
                0 => -1,
                s => s,
            }
        }
        Ordering::Equal => {
            let (an, alen) = name_of(a, ajson, anames);
            strncmp(an, name_of(b, bjson, bnames).0, alen)
        }
    }
}

/// glibc's `qsort_r` (a top-down merge sort: the left half is taken while
/// it compares less or equal), which libpcp sorts labels with; the order
/// matters where libpcp's name comparison is not a consistent order.
fn merge_sort<T: Copy>(v: &mut [T], cmp: &mut impl FnMut(&T, &T) -> i32) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    merge_sort(&mut v[..n1], cmp);
    merge_sort(&mut v[n1..], cmp);
    let mut out = Vec::with_capacity(n);
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if cmp(&v[i], &v[j]) <= 0 {
            out.push(v[i]);
            i += 1;
        } else {
            out.push(v[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&v[i..n1]);
    out.extend_from_slice(&v[j..]);
    v.copy_from_slice(&out);
}

/// An output buffer of fixed room, written as libpcp writes (`pmsprintf`:
/// truncating, always leaving room for a NUL, and counting an empty write
/// as one byte: a NUL).
struct Out {
    bytes: Vec<u8>,
    room: usize,
}

impl Out {
    fn new(room: usize) -> Out {
        Out { bytes: Vec::new(), room }
    }

    /// `pmsprintf` of `text` into the room left; the bytes it counts.
    fn printf(&mut self, text: &[u8]) -> usize {
        if self.room == 0 {
            return 0;
        }
        let n = if text.is_empty() {
            self.bytes.push(0);
            1
        } else {
            let n = text.len().min(self.room - 1);
            self.bytes.extend_from_slice(&text[..n]);
            n
        };
        self.room -= n;
        n
    }

    /// `stash_chars`: `%.*s` of `s` with precision `n`, if it fits.
    fn stash(&mut self, s: &[u8], n: usize) -> Result<(), PmError> {
        if n >= self.room {
            return Err(E2BIG);
        }
        if n > 0 {
            self.printf(prec(s, n));
        }
        Ok(())
    }

    fn len(&self) -> usize {
        self.bytes.len()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Direct,
    Compound,
}

/// libpcp's label parser state, fed by the tokenizer.
struct Parser<'a> {
    input: &'a [u8],
    error: Option<PmError>,
    maxlabels: usize,
    names: &'a mut CompoundNames,
    labels: Vec<Label>,
    out: Out,
    comma: bool,
    token: usize,
    array: Vec<usize>,
    name: usize,
    namelen: usize,
    namelevel: usize,
    style: Style,
    depth: usize,
    /// The dotted prefix of nested names: the allocated bytes, read as a C
    /// string (libpcp appends later parts past the first part's NUL).
    stack: Option<Vec<u8>>,
    labelflags: u8,
}

impl Parser<'_> {
    fn push_name(&mut self) {
        if self.name == 0 {
            self.style = Style::Direct;
            return;
        }
        let name = prec(c_at(&self.out.bytes, self.name), self.namelen).to_vec();
        // the first part from the start; later ones as ".part" from the
        // stack's length, which lies past the first part's NUL
        let (mut stack, at, size, text) = match self.stack.take() {
            None => (Vec::new(), 0, self.namelen + 1, name),
            Some(old) => {
                let at = old.len();
                (old, at, at + self.namelen + 2, [&b"."[..], &name].concat())
            }
        };
        // that is the allocation libpcp makes; the text (shorter if the
        // name ran into a NUL) and its NUL always fit
        stack.resize(size, 0);
        stack[at..at + text.len()].copy_from_slice(&text);
        stack[at + text.len()] = 0;
        self.stack = Some(stack);
        self.style = Style::Compound;
        self.depth += 1;
    }

    fn pop_name(&mut self) {
        if self.depth > 1 {
            self.style = Style::Compound;
            self.depth -= 1;
        } else {
            self.style = Style::Direct;
            self.depth = 0;
        }
        let Some(stack) = self.stack.as_mut() else { return };
        let len = c_at(stack, 0).len();
        match stack[..len].iter().rposition(|&b| b == b'.') {
            Some(dot) => {
                stack[dot] = 0;
                stack.truncate(dot);
            }
            None => self.stack = None,
        }
    }

    fn add_value(&mut self, valuelen: usize, noop: bool) {
        let value = self.out.len().wrapping_sub(valuelen);
        if self.labels.len() >= self.maxlabels {
            self.error = Some(E2BIG);
        } else {
            if !noop && self.style == Style::Compound {
                let size = self.stack.as_ref().map_or(0, Vec::len) + 1 + self.namelen + 1;
                // a stack emptied by a pop at the third level is printed as
                // glibc prints a null string; the name is cut to fit
                let mut full = match &self.stack {
                    Some(s) => c_at(s, 0).to_vec(),
                    None => b"(null)".to_vec(),
                };
                full.push(b'.');
                full.extend_from_slice(prec(c_at(&self.out.bytes, self.name), self.namelen));
                full.truncate(size - 1);
                self.names.add(self.name as u32, full);
            }
            let mut flags = self.labelflags;
            if self.style == Style::Compound {
                flags |= flags::COMPOUND;
            }
            self.labels.push(Label {
                name: self.name as u16,
                namelen: self.namelen as u8,
                flags,
                value: value as u16,
                valuelen: valuelen as u16,
            });
        }
        self.name = 0;
        self.namelen = 0;
    }

    fn comma(&mut self) {
        if self.comma {
            let _ = self.out.stash(b",", 1);
        }
    }
}

/// libpcp's rules for a label name: a letter, then letters, digits and
/// `_` (and `.` when `nested`). `Ok(true)` for a dotted name.
fn check_name(name: &[u8], nested: bool) -> Result<bool, PmError> {
    if name.is_empty() {
        return Err(EINVAL);
    }
    if name.len() >= MAXLABELNAMELEN {
        return Err(E2BIG);
    }
    if !name[0].is_ascii_alphabetic() {
        return Err(EINVAL);
    }
    let mut dotted = false;
    for &c in &name[1..] {
        if c.is_ascii_alphanumeric() || c == b'_' {
            continue;
        }
        if c == b'.' && nested {
            dotted = true;
            continue;
        }
        return Err(EINVAL);
    }
    Ok(dotted)
}

impl json::Sink for Parser<'_> {
    fn event(&mut self, action: json::Action, kind: json::Kind, level: usize, at: usize) {
        use json::{Action, Kind};
        match (action, kind) {
            (Action::Push, Kind::Object) => {
                self.comma();
                let _ = self.out.stash(b"{", 1);
                self.push_name();
                self.comma = false;
            }
            (Action::Push, Kind::List) => {
                self.comma();
                let _ = self.out.stash(b"[", 1);
                self.array.push(at);
                self.comma = false;
            }
            (Action::Push, Kind::Key) => {
                self.comma();
                self.token = at;
                self.comma = false;
            }
            (Action::Push, Kind::Str | Kind::Special) => {
                self.comma();
                self.token = at;
                self.comma = true;
            }
            (Action::Pop, Kind::Object) => {
                let _ = self.out.stash(b"}", 2);
                if self.namelevel == level && self.name != 0 {
                    self.add_value(2, true); // an empty map
                }
                self.pop_name();
                self.comma = true;
            }
            (Action::Pop, Kind::List) => {
                let _ = self.out.stash(b"]", 1);
                // libpcp keeps one list start, so a list holding a list
                // measures from a null pointer there; the innermost open
                // list's start is used here
                let start = self.array.pop().unwrap_or(at);
                if self.namelevel == level && self.name != 0 {
                    self.add_value(at.saturating_sub(start) + 1, false);
                }
                self.comma = true;
            }
            (Action::Pop, Kind::Key) => {
                let start = self.token + 1;
                let name = self.input.get(start..at).unwrap_or(&[]);
                let nested = self.labelflags & flags::COMPOUND != 0;
                let check = check_name(name, nested);
                if let Err(e) = check {
                    self.error = Some(e);
                }
                self.name = self.out.len() + 1;
                if check == Ok(true) {
                    self.names.add(self.name as u32, prec(name, name.len()).to_vec());
                }
                self.namelen = name.len();
                self.namelevel = level;
                let _ = self.out.stash(self.input.get(self.token..).unwrap_or(&[]), name.len() + 1);
                let _ = self.out.stash(b"\":", 2);
            }
            (Action::Pop, Kind::Str | Kind::Special) => {
                let len = at.saturating_sub(self.token) + usize::from(kind == Kind::Str);
                let _ = self.out.stash(self.input.get(self.token..).unwrap_or(&[]), len);
                if self.namelevel == level && self.name != 0 {
                    self.add_value(len, false);
                }
            }
            (_, Kind::Root) => {}
        }
    }

    fn error(&mut self) {
        self.error = Some(EINVAL);
    }
}

/// A parse's result: the labels (sorted), the JSONB text (as written: it
/// may hold a NUL where libpcp wrote an empty string) and compound names.
#[derive(Default)]
struct Parsed {
    labels: Vec<Label>,
    json: Vec<u8>,
}

impl Parsed {
    fn side<'a>(&'a self, names: &'a CompoundNames) -> Side<'a> {
        Side { labels: &self.labels, json: &self.json, names: Some(names) }
    }
}

/// `__pmParseLabels`: parse `input` (all of it) into JSONB text of at most
/// `room` bytes, adding compound names to `names`; no labels is an empty
/// text.
fn parse(input: &[u8], maxlabels: usize, names: &mut CompoundNames, labelflags: u8, room: usize) -> PmResult<Parsed> {
    let mut p = Parser {
        input,
        error: None,
        maxlabels,
        names,
        labels: Vec::new(),
        out: Out::new(room),
        comma: false,
        token: 0,
        array: Vec::new(),
        name: 0,
        namelen: 0,
        namelevel: 0,
        style: Style::Direct,
        depth: 0,
        stack: None,
        labelflags,
    };
    json::feed(input, MAX_RECURSION_DEPTH, MAX_DESCENT_LEVEL, &mut p);
    let Parser { error, mut labels, out, .. } = p;
    if let Some(e) = error {
        names.clear();
        return Err(e);
    }
    if labels.is_empty() {
        names.clear();
        return Ok(Parsed { labels, ..Parsed::default() });
    }
    let json = out.bytes;
    let names_ref: &CompoundNames = names;
    merge_sort(&mut labels, &mut |a, b| namecmp(a, &json, Some(names_ref), b, &json, Some(names_ref)));
    if labels.windows(2).any(|w| namecmp(&w[0], &json, Some(names_ref), &w[1], &json, Some(names_ref)) == 0) {
        names.clear();
        return Err(EINVAL);
    }
    Ok(Parsed { labels, json })
}

/// One side of a merge: labels, their text and compound names.
#[derive(Clone, Copy)]
struct Side<'a> {
    labels: &'a [Label],
    json: &'a [u8],
    names: Option<&'a CompoundNames>,
}

/// A merge's label filter (pmMergeLabelSets' callback): given a label
/// and its set's JSONB text, whether the merge keeps it.
pub type LabelFilter<'f> = Option<&'f mut dyn FnMut(&Label, &[u8]) -> bool>;

/// `stash_label`: write `"name":value,` for `l` (of `side`), recording
/// where it went in `index`.
fn stash_label(l: &Label, side: Side, out: &mut Out, index: &mut Vec<Label>, filter: &mut LabelFilter) -> PmResult<()> {
    if let Some(f) = filter.as_mut() {
        if !f(l, side.json) {
            return Ok(());
        }
    }
    let (name, namelen) = name_of(l, side.json, side.names);
    if namelen + 2 + 1 + usize::from(l.valuelen) + 1 >= out.room {
        return Err(E2BIG);
    }
    let start = out.len();
    let mut text = Vec::with_capacity(namelen + usize::from(l.valuelen) + 4);
    text.push(b'"');
    text.extend_from_slice(prec(name, namelen));
    text.extend_from_slice(b"\":");
    let valuelen = if l.valuelen != 0 {
        text.extend_from_slice(prec(c_at(side.json, usize::from(l.value)), usize::from(l.valuelen)));
        usize::from(l.valuelen)
    } else {
        text.extend_from_slice(b"null");
        4
    };
    text.push(b',');
    out.printf(&text);
    index.push(Label {
        name: (start + 1) as u16,
        namelen: namelen as u8,
        flags: l.flags,
        value: (start + 1 + namelen + 2) as u16,
        valuelen: valuelen as u16,
    });
    Ok(())
}

/// `__pmMergeLabelSets`: merge two sorted sides into one text of at most
/// `room` bytes, `b`'s value winning for a name in both; the text and the
/// index of what it holds.
fn merge_two(a: Side, b: Side, room: usize, filter: &mut LabelFilter) -> PmResult<(Vec<u8>, Vec<Label>)> {
    let mut out = Out::new(room);
    let mut index = Vec::new();
    out.stash(b"{", 1)?;
    let (na, nb) = (a.labels.len(), b.labels.len());
    let cmp = |i: usize, j: usize| namecmp(&a.labels[i], a.json, a.names, &b.labels[j], b.json, b.names);
    let (mut i, mut j) = (0, 0);
    loop {
        if i < na && (j >= nb || cmp(i, j) < 0) {
            // an earlier b label of the same name has already won
            if !(j > 0 && cmp(i, j - 1) == 0) {
                stash_label(&a.labels[i], a, &mut out, &mut index, filter)?;
            }
            i += 1;
        }
        if j < nb && (i >= na || cmp(i, j) >= 0) {
            stash_label(&b.labels[j], b, &mut out, &mut index, filter)?;
            j += 1;
        }
        if i >= na && j >= nb {
            break;
        }
    }
    if na > 0 || nb > 0 {
        // the last comma goes (or, when nothing was written, the brace)
        out.bytes.pop();
        out.room = out.room.saturating_sub(1);
    }
    out.stash(b"}", 2)?;
    Ok((out.bytes, index))
}

/// The labels of a set that a merge uses: none for an error count.
fn usable(set: &LabelSet) -> &[Label] {
    let n = usize::try_from(set.nlabels).unwrap_or(0);
    &set.labels[..n.min(set.labels.len())]
}

/// `pmMergeLabelSets`: merge `sets` (lowest precedence first; `None` and
/// sets with an error count are passed over) into one JSONB text of at
/// most `buflen - 1` bytes, keeping only the labels `filter` accepts (it
/// sees each label with its set's text). No usable sets give an empty
/// text; `-E2BIG` when the text does not fit, `-EINVAL` for no sets.
///
/// As libpcp does, when the filter drops every label the text is `}`.
#[doc(alias = "pmMergeLabelSets")]
pub fn merge_label_sets(sets: &[Option<&LabelSet>], buflen: usize, mut filter: LabelFilter) -> PmResult<Vec<u8>> {
    if sets.is_empty() {
        return Err(EINVAL);
    }
    let mut text: Vec<u8> = Vec::new();
    let mut index: Vec<Label> = Vec::new();
    for set in sets.iter().flatten() {
        if set.nlabels < 0 {
            continue;
        }
        let a = Side { labels: &index, json: &text, names: None };
        let b = Side { labels: usable(set), json: &set.json, names: set.names.as_ref() };
        let (t, i) = merge_two(a, b, buflen, &mut filter)?;
        if t.len() >= buflen || t.len() >= PM_MAXLABELJSONLEN {
            return Err(E2BIG);
        }
        text = t;
        index = i;
    }
    Ok(text)
}

/// `__pmMergeLabels`: parse two texts (`None` or empty for none) and merge
/// them into `buffer`; the length written (0, writing nothing, when
/// neither has labels).
fn merge_texts(a: &[u8], b: Option<&[u8]>, buffer: &mut Vec<u8>, buflen: usize, labelflags: u8) -> PmResult<usize> {
    let (mut an, mut bn) = (CompoundNames::new(), CompoundNames::new());
    let pa = if a.is_empty() { None } else { Some(parse(a, MAXLABELSET, &mut an, labelflags, PM_MAXLABELJSONLEN)?) };
    let b = b.map(|b| c_at(b, 0)).filter(|b| !b.is_empty());
    let pb = match b {
        Some(b) => Some(parse(b, MAXLABELSET, &mut bn, labelflags, PM_MAXLABELJSONLEN)?),
        None => None,
    };
    let (pa, pb) = (pa.unwrap_or_default(), pb.unwrap_or_default());
    if pa.json.is_empty() && pb.json.is_empty() {
        return Ok(0);
    }
    let (a, b) = (pa.side(&an), pb.side(&bn));
    let (text, _) = merge_two(a, b, buflen, &mut None)?;
    // written over the start of the caller's buffer, NUL included
    if buffer.len() < text.len() + 1 {
        buffer.resize(text.len() + 1, 0);
    }
    buffer[..text.len()].copy_from_slice(&text);
    buffer[text.len()] = 0;
    Ok(text.len())
}

/// `pmMergeLabels`: merge JSON label texts (lowest precedence first;
/// `None` for none; each read up to a NUL) into one JSONB text of at most
/// `buflen - 1` bytes. Names may be dotted, and every label counts as
/// compound. No labels at all give an empty text.
///
/// As libpcp does, each step re-parses the text so far from a scratch
/// copy that a shorter text only partly overwrites; what a longer earlier
/// text leaves behind can make a later step fail.
#[doc(alias = "pmMergeLabels")]
pub fn merge_labels(sets: &[Option<&[u8]>], buflen: usize) -> PmResult<Vec<u8>> {
    if sets.is_empty() {
        return Err(EINVAL);
    }
    let mut scratch = vec![0u8; PM_MAXLABELJSONLEN];
    let mut buffer: Vec<u8> = Vec::new();
    let mut bytes = 0;
    for set in sets {
        if bytes > 0 {
            scratch[..bytes].copy_from_slice(&buffer[..bytes]);
        }
        bytes = merge_texts(c_at(&scratch, 0), *set, &mut buffer, buflen, flags::COMPOUND)?;
        if bytes >= buflen || bytes >= PM_MAXLABELJSONLEN {
            return Err(E2BIG);
        }
    }
    buffer.truncate(bytes);
    Ok(buffer)
}

/// `__pmParseLabelSet`: a label set from JSON text (all of `json`), its
/// labels given `labelflags`. Empty text is a set of no labels.
#[doc(alias = "__pmParseLabelSet")]
pub fn parse_label_set(json: &[u8], labelflags: u8) -> PmResult<LabelSet> {
    let mut names = CompoundNames::new();
    let parsed = if json.is_empty() {
        Parsed::default()
    } else {
        parse(json, MAXLABELSET, &mut names, labelflags, PM_MAXLABELJSONLEN)?
    };
    let text = if parsed.labels.is_empty() { Vec::new() } else { c_at(&parsed.json, 0).to_vec() };
    Ok(LabelSet {
        inst: PM_IN_NULL,
        nlabels: parsed.labels.len() as i32,
        json: text,
        labels: parsed.labels,
        // the set keeps a copy, which libpcp makes node by node
        names: (names.size() > 0 && names.nodes() > 0).then(|| names.copied()),
    })
}

/// `__pmAddLabels`: parse `extras` (read up to a NUL) and merge it over
/// `set` (making the set if there is none, for `PM_IN_NULL`); the set's
/// label count after.
///
/// As in libpcp, a merged set keeps its earlier compound names (keyed by
/// offsets into its earlier text), not those of `extras`.
#[doc(alias = "__pmAddLabels")]
pub fn add_labels(set: &mut Option<LabelSet>, extras: &[u8], labelflags: u8) -> PmResult<i32> {
    let extras = c_at(extras, 0);
    if extras.len() + 1 >= PM_MAXLABELJSONLEN {
        return Err(E2BIG);
    }
    let mut names = CompoundNames::new();
    let parsed = parse(extras, PM_MAXLABELS, &mut names, labelflags, PM_MAXLABELJSONLEN)?;
    let (labels, text) = match set.as_ref() {
        Some(old) => {
            let a = Side { labels: usable(old), json: &old.json, names: old.names.as_ref() };
            let b = parsed.side(&names);
            let (text, index) = merge_two(a, b, PM_MAXLABELJSONLEN, &mut None)?;
            if text.len() >= PM_MAXLABELJSONLEN {
                return Err(E2BIG);
            }
            (index, text)
        }
        None => (parsed.labels, parsed.json),
    };
    let fresh = set.is_none();
    let target = set.get_or_insert_with(|| LabelSet { inst: PM_IN_NULL, ..LabelSet::default() });
    target.nlabels = labels.len() as i32;
    target.json = c_at(&text, 0).to_vec();
    target.labels = labels;
    // libpcp empties the new names before it looks at them when it
    // merged, so only a new set takes them
    if fresh && names.size() > 0 && names.nodes() > 0 {
        target.names = Some(names.copied());
    }
    Ok(target.nlabels)
}

impl LabelSet {
    /// A set as read from an archive: the text and index as stored, no
    /// compound names.
    pub fn from_parts(inst: i32, json: Vec<u8>, labels: Vec<Label>) -> LabelSet {
        LabelSet { inst, nlabels: labels.len() as i32, json, labels, names: None }
    }

    /// A label's name as merging sees it (its full compound name where
    /// the set keeps one).
    pub fn name(&self, l: &Label) -> &[u8] {
        let (name, len) = name_of(l, &self.json, self.names.as_ref());
        prec(name, len)
    }

    /// A label's value text.
    pub fn value(&self, l: &Label) -> &[u8] {
        prec(c_at(&self.json, usize::from(l.value)), usize::from(l.valuelen))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge(sets: &[&str]) -> PmResult<String> {
        let sets: Vec<Option<&[u8]>> = sets.iter().map(|s| Some(s.as_bytes())).collect();
        merge_labels(&sets, PM_MAXLABELJSONLEN).map(|t| String::from_utf8(t).unwrap())
    }

    #[test]
    fn later_sets_win_and_names_sort() {
        assert_eq!(merge(&[r#"{"b":1, "a":"x"}"#, r#"{"b": 2,"c":null}"#]).unwrap(), r#"{"a":"x","b":2,"c":null}"#);
        // a list value is measured in the input and taken from the compacted
        // text, so white space in it shifts it (as libpcp does)
        assert_eq!(merge(&[r#"{"a":{"b":1,"c":[1, 2]}}"#]).unwrap(), r#"{"a.b":1,"a.c"::[1,2]}"#);
        assert_eq!(merge(&["{}", ""]).unwrap(), "");
    }

    #[test]
    fn bad_names_and_duplicates_are_refused() {
        for bad in [r#"{"1a":1}"#, r#"{"a-b":1}"#, r#"{"a":1,"a":2}"#, r#"{"":1}"#, r#"{"a":01}"#] {
            assert_eq!(merge(&[bad]), Err(EINVAL), "{bad}");
        }
        let long = format!(r#"{{"{}":1}}"#, "a".repeat(255));
        assert_eq!(merge(&[&long]), Err(E2BIG));
    }

    #[test]
    fn third_level_names_come_from_the_first() {
        // libpcp's name stack keeps "a" as a C string and appends past it
        assert_eq!(merge(&[r#"{"a":{"b":{"c":1}}}"#]).unwrap(), r#"{"a.c":1}"#);
    }

    #[test]
    fn stale_scratch_text_breaks_a_later_step() {
        assert_eq!(merge(&[r#"{"a":12345}"#, r#"{"a":1}"#, "{}"]), Err(EINVAL));
    }

    #[test]
    fn sets_merge_by_precedence_with_a_filter() {
        let ctx = parse_label_set(br#"{"hostname":"h","userid":1}"#, flags::CONTEXT).unwrap();
        let mut opt = ctx.clone();
        opt.labels[1].flags |= flags::OPTIONAL;
        let item = parse_label_set(br#"{"hostname":"i"}"#, flags::ITEM).unwrap();
        let all = merge_label_sets(&[Some(&ctx), None, Some(&item)], PM_MAXLABELJSONLEN, None).unwrap();
        assert_eq!(all, br#"{"hostname":"i","userid":1}"#);
        let mut intrinsic = |l: &Label, _: &[u8]| l.flags & flags::OPTIONAL == 0;
        let some = merge_label_sets(&[Some(&opt)], PM_MAXLABELJSONLEN, Some(&mut intrinsic)).unwrap();
        assert_eq!(some, br#"{"hostname":"h"}"#);
        let mut none = |_: &Label, _: &[u8]| false;
        assert_eq!(merge_label_sets(&[Some(&ctx)], PM_MAXLABELJSONLEN, Some(&mut none)).unwrap(), b"}");
        assert_eq!(merge_label_sets(&[None], PM_MAXLABELJSONLEN, None).unwrap(), b"");
        assert_eq!(merge_label_sets(&[Some(&ctx)], 10, None), Err(E2BIG));
    }

    #[test]
    fn add_labels_merges_over_a_set() {
        let mut set = None;
        assert_eq!(add_labels(&mut set, br#"{"hostname":"h"}"#, flags::CONTEXT), Ok(1));
        assert_eq!(add_labels(&mut set, br#"{"a":true}"#, flags::CONTEXT | flags::OPTIONAL), Ok(2));
        let set = set.unwrap();
        assert_eq!(set.json, br#"{"a":true,"hostname":"h"}"#);
        assert_eq!(set.labels[0].flags, flags::CONTEXT | flags::OPTIONAL);
        assert_eq!(set.name(&set.labels[1]), b"hostname");
        assert_eq!(set.value(&set.labels[1]), br#""h""#);
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;
        use std::collections::BTreeMap;

        fn value() -> impl Strategy<Value = String> {
            prop_oneof![
                (-1000i64..1000).prop_map(|n| n.to_string()),
                "[a-z ]{0,8}".prop_map(|s| format!("\"{s}\"")),
                Just("true".to_string()),
                Just("null".to_string()),
                Just("2.5e-3".to_string()),
            ]
        }

        fn set() -> impl Strategy<Value = BTreeMap<String, String>> {
            proptest::collection::btree_map("[a-zA-Z][a-zA-Z0-9_]{0,12}", value(), 0..12)
        }

        /// JSON of a map, in reverse order and spaced out, or not.
        fn text(m: &BTreeMap<String, String>, spaced: bool) -> String {
            let sep = if spaced { " ,\n " } else { "," };
            let mut body: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            if spaced {
                body.reverse();
            }
            format!("{{{}}}", body.join(sep))
        }

        proptest! {
            #[test]
            fn a_set_parses_to_its_sorted_labels(m in set(), spaced in any::<bool>()) {
                let set = parse_label_set(text(&m, spaced).as_bytes(), flags::ITEM).unwrap();
                prop_assert_eq!(set.nlabels as usize, m.len());
                let got: Vec<(Vec<u8>, Vec<u8>)> =
                    set.labels.iter().map(|l| (set.name(l).to_vec(), set.value(l).to_vec())).collect();
                let want: Vec<(Vec<u8>, Vec<u8>)> =
                    m.iter().map(|(k, v)| (k.clone().into_bytes(), v.clone().into_bytes())).collect();
                prop_assert_eq!(got, want);
                prop_assert!(set.labels.iter().all(|l| l.flags == flags::ITEM));
            }

            #[test]
            fn later_sets_win(a in set(), b in set(), spaced in any::<bool>()) {
                let mut want = a.clone();
                want.extend(b.clone());
                let (ta, tb) = (text(&a, spaced), text(&b, !spaced));
                let merged = merge_labels(&[Some(ta.as_bytes()), Some(tb.as_bytes())], PM_MAXLABELJSONLEN).unwrap();
                let expect = if want.is_empty() { String::new() } else { text(&want, false) };
                prop_assert_eq!(String::from_utf8(merged).unwrap(), expect.clone());
                let sa = parse_label_set(ta.as_bytes(), flags::CONTEXT).unwrap();
                let sb = parse_label_set(tb.as_bytes(), flags::ITEM).unwrap();
                let merged = merge_label_sets(&[Some(&sa), Some(&sb)], PM_MAXLABELJSONLEN, None).unwrap();
                let expect = if want.is_empty() { "{}".to_string() } else { expect };
                prop_assert_eq!(String::from_utf8(merged).unwrap(), expect);
            }

            #[test]
            fn any_bytes_are_answered(data in proptest::collection::vec(any::<u8>(), 0..200), buflen in 0usize..300) {
                let _ = merge_labels(&[Some(&data), Some(&data[data.len() / 2..])], buflen);
                if let Ok(set) = parse_label_set(&data, flags::COMPOUND) {
                    if let Ok(t) = merge_label_sets(&[Some(&set), Some(&set)], buflen.max(1), None) {
                        prop_assert!(t.len() < buflen.max(1));
                    }
                }
            }
        }
    }
}
