//! Reading an uploaded Excel workbook (.xlsx) within fixed bounds, for every import of the product.
//!
//! A workbook is a zip of XML parts, and a small file can declare a huge sheet (`<dimension ref="A1:XFD1048576">`)
//! or hold parts that inflate a thousandfold. So, before anything is parsed:
//! - the archive may hold at most `MAX_PARTS` entries (read from its end record, before the zip reader lists them);
//! - every part is inflated once into nothing, counting: a worksheet at most `SHEET_PART` bytes, shared strings at
//!   most `STRINGS_PART`, any other part `OTHER_PART`, all of them together `ALL_PARTS`; and no part may hold a
//!   run of more than `MAX_RUN` bytes between two `<` (the XML reader holds one such run in memory at a time);
//!
//! and then the first sheet is read as a stream of cells (calamine's cell reader: the sheet's XML cell by cell,
//! never a dense grid from the declared dimension). The first row with any text is the header; the caller picks
//! the columns it wants by their headers; a row whose picked cells are all empty is skipped; reading stops with an
//! error at the first row past the caller's row limit, at a non-empty cell beyond column `MAX_COLS`, at a cell
//! longer than Excel's own limit, and when the text kept passes `MAX_TEXT`. With these bounds no file of any shape
//! moves the server's memory by more than a few tens of megabytes (bench/hostile-xlsx.sh measures it).
use std::io::{Cursor, Read};

use calamine::{DataRef, Reader};

use crate::error::{ApiError, ApiResult};

/// Entries a workbook may hold (a filled-in template has about ten).
const MAX_PARTS: usize = 1_000;
/// Inflated sizes a workbook's parts may have.
#[derive(Clone, Copy)]
struct Bounds {
    /// The worksheets (streamed: this bounds the time a file takes, not memory).
    sheet: u64,
    /// The shared strings (read whole by calamine).
    strings: u64,
    /// Any other part (styles, workbook, relationships, pictures).
    other: u64,
    /// All parts together.
    all: u64,
}

const BOUNDS: Bounds = Bounds { sheet: 96 << 20, strings: 8 << 20, other: 8 << 20, all: 128 << 20 };
/// Bytes of XML between two `<` (one text node or one tag): the XML reader holds one such run at a time, so this
/// bounds what one event costs. A cell holds at most `MAX_CELL` characters (4 bytes each, escaped at most 6).
const MAX_RUN: u64 = 6 * 4 * 32_767 + 4_096;
/// The rightmost column a cell with text may be in (Excel 2003's IV).
pub const MAX_COLS: u32 = 256;
/// Characters in one cell (Excel's own limit).
const MAX_CELL: usize = 32_767;
/// Text kept from all rows together.
const MAX_TEXT: usize = 16 << 20;

/// At most one import per tenant at a time: an import holds its tenant's slot until it is finished (a
/// background import too), so a tenant cannot run several in parallel to multiply their cost.
#[derive(Default, Clone)]
pub struct ImportGate(std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

/// A tenant's import slot; dropping it frees the slot.
pub struct ImportSlot {
    gate: ImportGate,
    tenant: String,
}

impl ImportGate {
    /// The tenant's slot, or 429 while another import of the tenant runs.
    pub fn enter(&self, tenant: &str) -> ApiResult<ImportSlot> {
        let mut running = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !running.insert(tenant.to_string()) {
            let mut e = ApiError::new(crate::error::Kind::ImportBusy);
            e.retry_after = Some(5);
            return Err(e);
        }
        Ok(ImportSlot { gate: self.clone(), tenant: tenant.to_string() })
    }
}

impl Drop for ImportSlot {
    fn drop(&mut self) {
        self.gate.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.tenant);
    }
}

/// One data row: its row number as Excel shows it, and the picked columns' texts in the caller's order — held
/// as one string (a large import holds a few hundred thousand rows while it is checked).
pub struct Row {
    pub no: usize,
    joined: String,
}

/// Between two cells of a row (a control character: XML text cannot hold it, so no cell does).
const SEP: char = '\u{1f}';

impl Row {
    /// The picked cells, in the caller's order.
    pub fn cells(&self) -> impl Iterator<Item = &str> {
        self.joined.split(SEP)
    }
}

fn not_a_sheet() -> ApiError {
    ApiError::rule("文件不是可读取的 Excel(.xlsx)文件", "The file is not a readable Excel (.xlsx) workbook")
}

fn too_large(what: &str, limit: u64) -> ApiError {
    let mb = limit >> 20;
    ApiError::rule(
        format!("文件内容过大({what}解压后超过 {mb} MB),请减少行数或分成几个文件导入"),
        format!("The workbook is too large ({what} over {mb} MB uncompressed); import fewer rows per file"),
    )
}

/// The number of entries the zip's end-of-central-directory record declares, without listing them.
fn declared_entries(bytes: &[u8]) -> Option<usize> {
    const EOCD: &[u8] = b"PK\x05\x06";
    let tail_start = bytes.len().saturating_sub(22 + 65_535);
    let tail = &bytes[tail_start..];
    let at = tail.windows(4).rposition(|w| w == EOCD)?;
    let rec = tail.get(at..at + 22)?;
    let total = u16::from_le_bytes([rec[10], rec[11]]);
    // 0xFFFF means a zip64 archive: no workbook small enough to upload needs one.
    (total != u16::MAX).then_some(total as usize)
}

/// Inflates every part once, counting, and refuses the archive past the bounds above.
fn check_parts(bytes: &[u8], b: Bounds) -> ApiResult<()> {
    let n = declared_entries(bytes).ok_or_else(not_a_sheet)?;
    if n > MAX_PARTS {
        return Err(ApiError::rule(format!("文件包含的部件过多({n} 个),不是正常的 Excel 文件"), format!("The file holds {n} parts; not an ordinary Excel workbook")));
    }
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|_| not_a_sheet())?;
    if zip.len() > MAX_PARTS {
        return Err(not_a_sheet());
    }
    let mut all = 0u64;
    for i in 0..zip.len() {
        let mut part = zip.by_index(i).map_err(|_| not_a_sheet())?;
        let name = part.name().to_string();
        let (what, cap) = if name.starts_with("xl/worksheets/") {
            ("工作表", b.sheet)
        } else if name.eq_ignore_ascii_case("xl/sharedStrings.xml") {
            ("共享文本", b.strings)
        } else {
            ("文件部件", b.other)
        };
        if part.size() > cap {
            return Err(too_large(what, cap));
        }
        // The declared size may lie: count what really comes out, one byte past the bound at most.
        let mut runs = Runs::default();
        let got = std::io::copy(&mut (&mut part).take(cap + 1), &mut runs).map_err(|_| not_a_sheet())?;
        if got > cap {
            return Err(too_large(what, cap));
        }
        if runs.longest > MAX_RUN {
            return Err(ApiError::rule(
                format!("文件中有一段内容超过 Excel 单元格的上限({MAX_CELL} 个字),不是正常的 Excel 文件"),
                format!("The file holds a run longer than an Excel cell may be ({MAX_CELL} characters); not an ordinary workbook"),
            ));
        }
        all += got;
        if all > b.all {
            return Err(too_large("全部内容", b.all));
        }
    }
    Ok(())
}

/// A sink that notes the longest run of bytes without a `<`.
#[derive(Default)]
struct Runs {
    current: u64,
    longest: u64,
}

impl std::io::Write for Runs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for piece in buf.split_inclusive(|b| *b == b'<') {
            self.current += piece.len() as u64;
            self.longest = self.longest.max(self.current);
            if piece.last() == Some(&b'<') {
                self.current = 0;
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A cell as text: strings trimmed, whole numbers without `.0`, dates as `yyyy-MM-dd`, booleans as 1/0.
fn text(v: &DataRef<'_>) -> String {
    match v {
        DataRef::String(s) => s.trim().to_string(),
        DataRef::SharedString(s) => s.trim().to_string(),
        DataRef::Int(i) => i.to_string(),
        DataRef::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        DataRef::Float(f) => f.to_string(),
        DataRef::Bool(b) => (*b as i64).to_string(),
        DataRef::DateTimeIso(s) => s.chars().take(10).collect(),
        DataRef::DateTime(d) => chrono::NaiveDate::from_ymd_opt(1899, 12, 30)
            .and_then(|base| base.checked_add_signed(chrono::TimeDelta::days(d.as_f64().floor() as i64)))
            .map(|day| day.format("%Y-%m-%d").to_string())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// Reads the first sheet of `bytes`: the header row's texts go to `pick`, which answers the columns to keep
/// (0-based, in the order the caller wants them); then at most `max_rows` data rows of those columns.
pub fn read<F>(bytes: &[u8], max_rows: usize, pick: F) -> ApiResult<Vec<Row>>
where
    F: FnOnce(&[String]) -> ApiResult<Vec<usize>>,
{
    read_within(bytes, max_rows, BOUNDS, pick)
}

fn read_within<F>(bytes: &[u8], max_rows: usize, bounds: Bounds, pick: F) -> ApiResult<Vec<Row>>
where
    F: FnOnce(&[String]) -> ApiResult<Vec<usize>>,
{
    if !bytes.starts_with(b"PK\x03\x04") {
        return Err(not_a_sheet());
    }
    check_parts(bytes, bounds)?;
    let mut book: calamine::Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(bytes)).map_err(|_| not_a_sheet())?;
    let first = book.sheet_names().first().cloned().ok_or_else(not_a_sheet)?;
    let mut cells = book.worksheet_cells_reader(&first).map_err(|_| not_a_sheet())?;

    // The row being gathered: its 0-based number and its non-empty cells (column, text).
    let mut current: Option<(u32, Vec<(u32, String)>)> = None;
    let mut pick = Some(pick);
    let mut wanted: Vec<usize> = Vec::new();
    let mut out: Vec<Row> = Vec::new();
    let mut kept = 0usize;
    // Ends a gathered row: the first becomes the header, the others data rows of the picked columns.
    let mut finish = |row: u32, got: Vec<(u32, String)>, out: &mut Vec<Row>| -> ApiResult<()> {
        if let Some(pick) = pick.take() {
            let width = got.iter().map(|(c, _)| *c as usize + 1).max().unwrap_or(0);
            let mut header = vec![String::new(); width];
            for (c, t) in got {
                header[c as usize] = t;
            }
            wanted = pick(&header)?;
            return Ok(());
        }
        let mut cells = vec![""; wanted.len()];
        for (c, t) in &got {
            for (slot, w) in wanted.iter().enumerate() {
                if *w == *c as usize {
                    kept += t.len();
                    cells[slot] = t;
                }
            }
        }
        if cells.iter().all(|c| c.is_empty()) {
            return Ok(());
        }
        if out.len() == max_rows {
            return Err(ApiError::rule(format!("一次最多导入 {max_rows} 行"), format!("At most {max_rows} rows per file")));
        }
        if kept > MAX_TEXT {
            return Err(too_large("文字", MAX_TEXT as u64));
        }
        out.push(Row { no: row as usize + 1, joined: cells.join("\u{1f}") });
        Ok(())
    };
    while let Some(cell) = cells.next_cell().map_err(|_| not_a_sheet())? {
        let (row, col) = cell.get_position();
        let t = text(cell.get_value()).replace(SEP, "");
        if t.is_empty() {
            continue;
        }
        if col >= MAX_COLS {
            return Err(ApiError::rule(
                format!("第 {} 行第 {} 列超出范围:最多读取 {MAX_COLS} 列", row + 1, col + 1),
                format!("Row {}, column {}: at most {MAX_COLS} columns are read", row + 1, col + 1),
            ));
        }
        if t.chars().count() > MAX_CELL {
            return Err(ApiError::rule(
                format!("第 {} 行第 {} 列的内容超过 {MAX_CELL} 个字", row + 1, col + 1),
                format!("Row {}, column {}: more than {MAX_CELL} characters", row + 1, col + 1),
            ));
        }
        match &mut current {
            // A row holds at most one cell per column; more is not a sheet Excel writes.
            Some((r, got)) if *r == row && got.len() >= MAX_COLS as usize => return Err(not_a_sheet()),
            Some((r, got)) if *r == row => got.push((col, t)),
            _ => {
                if let Some((r, got)) = current.take() {
                    finish(r, got, &mut out)?;
                }
                current = Some((row, vec![(col, t)]));
            }
        }
    }
    if let Some((r, got)) = current.take() {
        finish(r, got, &mut out)?;
    }
    drop(finish);
    if pick.is_some() {
        return Err(ApiError::rule("文件中没有内容", "The file is empty"));
    }
    Ok(out)
}

/// Workbooks of any shape for tests (this crate's and the HTTP scenario tests): a sheet's XML written as given.
#[doc(hidden)]
pub mod fixtures {
    use std::io::{Cursor, Write};

    /// An .xlsx made of the given sheet XML (inline strings, no shared strings) and, optionally, shared strings.
    pub fn workbook(sheet: &str, strings: Option<&str>) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let o = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        let mut put = |name: &str, body: &[u8]| {
            zip.start_file(name, o).unwrap();
            zip.write_all(body).unwrap();
        };
        put("[Content_Types].xml", br#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#);
        put("_rels/.rels", br#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#);
        put("xl/workbook.xml", br#"<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#);
        put("xl/_rels/workbook.xml.rels", br#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#);
        put("xl/worksheets/sheet1.xml", sheet.as_bytes());
        if let Some(s) = strings {
            put("xl/sharedStrings.xml", s.as_bytes());
        }
        zip.finish().unwrap().into_inner()
    }

    /// A sheet of inline-string cells: (reference, text).
    pub fn sheet_xml(dimension: &str, cells: &[(&str, &str)]) -> String {
        let mut rows: Vec<(u32, String)> = Vec::new();
        for (r, t) in cells {
            let n: u32 = r.trim_start_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap();
            let c = format!(r#"<c r="{r}" t="inlineStr"><is><t>{t}</t></is></c>"#);
            match rows.iter_mut().find(|x| x.0 == n) {
                Some(x) => x.1.push_str(&c),
                None => rows.push((n, c)),
            }
        }
        let body: String = rows.iter().map(|(n, c)| format!(r#"<row r="{n}">{c}</row>"#)).collect();
        format!(r#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="{dimension}"/><sheetData>{body}</sheetData></worksheet>"#)
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{sheet_xml, workbook};
    use super::*;

    fn all(h: &[String]) -> ApiResult<Vec<usize>> {
        Ok((0..h.len()).collect())
    }

    fn msg(e: ApiError) -> String {
        e.message(crate::error::Lang::Zh)
    }

    #[test]
    fn reads_rows_under_the_header_by_picked_columns() {
        let x = workbook(&sheet_xml("A1:C4", &[("A1", "名称"), ("C1", "数量"), ("A2", "螺丝"), ("C2", "12"), ("A4", "垫片")]), None);
        let rows = read(&x, 10, |h| {
            assert_eq!(h, ["名称", "", "数量"]);
            Ok(vec![2, 0])
        })
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].no, rows[0].cells().collect::<Vec<_>>()), (2, vec!["12", "螺丝"]));
        assert_eq!((rows[1].no, rows[1].cells().collect::<Vec<_>>()), (4, vec!["", "垫片"]));
    }

    #[test]
    fn a_declared_huge_dimension_costs_nothing() {
        // The file of the report: cells A1 and XFD1048576 only. Its one far cell is past the column bound.
        let x = workbook(&sheet_xml("A1:XFD1048576", &[("A1", "名称"), ("XFD1048576", "x")]), None);
        assert!(x.len() < 2_000);
        let e = msg(read(&x, 5_000, all).err().unwrap());
        assert!(e.contains("第 1048576 行第 16384 列超出范围"), "{e}");
        // A far row within the columns is just one more row.
        let x = workbook(&sheet_xml("A1:B1048576", &[("A1", "名称"), ("B1", "数量"), ("B1048576", "x")]), None);
        let rows = read(&x, 5_000, all).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].no, 1_048_576);
    }

    #[test]
    fn stops_at_the_row_limit() {
        let cells: Vec<(String, String)> = (1..=30).map(|i| (format!("A{i}"), format!("r{i}"))).collect();
        let refs: Vec<(&str, &str)> = cells.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let x = workbook(&sheet_xml("A1:A30", &refs), None);
        assert_eq!(read(&x, 29, all).unwrap().len(), 29);
        let e = msg(read(&x, 28, all).err().unwrap());
        assert_eq!(e, "一次最多导入 28 行");
    }

    #[test]
    fn parts_that_inflate_past_their_bound_are_refused_before_parsing() {
        // 2 MB of one repeated row compresses to a few KB; with a 1 MB bound for sheets it is refused.
        let small = Bounds { sheet: 1 << 20, ..BOUNDS };
        let row = r#"<row><c t="inlineStr"><is><t>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</t></is></c></row>"#;
        let body = row.repeat((2 << 20) / row.len());
        let sheet = format!(r#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{body}</sheetData></worksheet>"#);
        let x = workbook(&sheet, None);
        assert!(x.len() < 50_000, "{}", x.len());
        let e = msg(read_within(&x, 5_000, small, all).err().unwrap());
        assert!(e.contains("工作表解压后超过 1 MB"), "{e}");
        // Shared strings inflate to more than their bound (the real one).
        let si = "<si><t>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</t></si>";
        let strings = format!(r#"<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{}</sst>"#, si.repeat((BOUNDS.strings as usize / si.len()) + 10));
        let x = workbook(&sheet_xml("A1", &[("A1", "x")]), Some(&strings));
        let e = msg(read(&x, 5_000, all).err().unwrap());
        assert!(e.contains("共享文本解压后超过 8 MB"), "{e}");
        // One text node of 4 MB (in a part within its bounds) would be held whole by the XML reader: refused.
        let x = workbook(&sheet_xml("A1", &[("A1", &"c".repeat(4 << 20))]), None);
        assert!(msg(read(&x, 5_000, all).err().unwrap()).contains("超过 Excel 单元格的上限"));
    }

    #[test]
    fn one_shared_string_referenced_everywhere_is_bounded_by_the_text_kept() {
        let long = "长".repeat(30_000);
        let strings = format!(r#"<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>名称</t></si><si><t>{long}</t></si></sst>"#);
        let row = |n: usize| format!(r#"<row r="{n}">{}</row>"#, (0..20).map(|c| format!(r#"<c r="{}{n}" t="s"><v>1</v></c>"#, (b'A' + c as u8) as char)).collect::<String>());
        let body: String = std::iter::once(r#"<row r="1"><c r="A1" t="s"><v>0</v></c></row>"#.to_string()).chain((2..2_000).map(row)).collect();
        let sheet = format!(r#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{body}</sheetData></worksheet>"#);
        let x = workbook(&sheet, Some(&strings));
        let e = msg(read(&x, 5_000, |_| Ok((0..20).collect())).err().unwrap());
        assert!(e.contains("文字解压后超过 16 MB"), "{e}");
    }

    #[test]
    fn not_a_workbook() {
        for bad in [&b"not a workbook"[..], b"PK\x03\x04garbage", b""] {
            assert_eq!(msg(read(bad, 10, all).err().unwrap()), "文件不是可读取的 Excel(.xlsx)文件");
        }
        let x = workbook(&sheet_xml("A1", &[]), None);
        assert_eq!(msg(read(&x, 10, all).err().unwrap()), "文件中没有内容");
    }
}
