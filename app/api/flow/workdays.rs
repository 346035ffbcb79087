//! Leave days as companies count them: working days in half days. A day's morning is 09:00–12:00 and its
//! afternoon 13:00–18:00; a half counts when the leave covers any of it. Saturdays and Sundays are not working
//! days unless the company lists them as 调休上班 (`leave.workdays`), and the public holidays it lists
//! (`leave.holidays`) are not either; both are parameters of 参数管理, dates and ranges such as
//! `2026-10-01~2026-10-07`, separated by commas, spaces or new lines. 产假 counts calendar days (as the
//! regulations do), in half days the same way.
use std::collections::BTreeSet;

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Weekday};

/// The parameter keys of the calendar.
pub const HOLIDAYS: &str = "leave.holidays";
pub const WORKDAYS: &str = "leave.workdays";

/// The 请假类型 dictionary's key of 产假, counted in calendar days.
pub const MATERNITY: i64 = 6;

/// A company's calendar: listed holidays and listed working weekend days.
#[derive(Debug, Default, Clone)]
pub struct Calendar {
    pub holidays: BTreeSet<NaiveDate>,
    pub workdays: BTreeSet<NaiveDate>,
}

/// A date list that does not read, naming the piece.
#[derive(Debug, PartialEq, Eq)]
pub struct BadDate(pub String);

/// Reads `2026-10-01, 2026-10-02~2026-10-07` into dates. A range is at most 366 days.
pub fn parse_dates(text: &str) -> Result<BTreeSet<NaiveDate>, BadDate> {
    let mut out = BTreeSet::new();
    let day = |s: &str| NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").map_err(|_| BadDate(s.trim().to_string()));
    for piece in text.split([',', '，', ';', '；', ' ', '\n', '\r', '\t', '、']).map(str::trim).filter(|p| !p.is_empty()) {
        match piece.split_once(['~', '～']) {
            Some((a, z)) => {
                let (a, z) = (day(a)?, day(z)?);
                if z < a || (z - a).num_days() > 366 {
                    return Err(BadDate(piece.to_string()));
                }
                let mut d = a;
                while d <= z {
                    out.insert(d);
                    d = d.succ_opt().ok_or_else(|| BadDate(piece.to_string()))?;
                }
            }
            None => {
                out.insert(day(piece)?);
            }
        }
    }
    Ok(out)
}

impl Calendar {
    /// The calendar of the two parameters' values (absent: weekends only). A value that does not read is an
    /// error naming it, so that a typo is not silently a working day.
    pub fn of(holidays: Option<&str>, workdays: Option<&str>) -> Result<Calendar, BadDate> {
        Ok(Calendar { holidays: parse_dates(holidays.unwrap_or(""))?, workdays: parse_dates(workdays.unwrap_or(""))? })
    }

    pub fn is_working(&self, d: NaiveDate) -> bool {
        if self.holidays.contains(&d) {
            return false;
        }
        !matches!(d.weekday(), Weekday::Sat | Weekday::Sun) || self.workdays.contains(&d)
    }
}

fn at(d: NaiveDate, h: u32) -> NaiveDateTime {
    d.and_time(NaiveTime::from_hms_opt(h, 0, 0).unwrap_or_default())
}

/// The leave's length in ten-thousandths of a day (multiples of 5 000: half days), counting working days, or
/// every day when `calendar_days`. At most 400 days are walked (a longer span is refused by the caller).
pub fn leave_days(from: NaiveDateTime, to: NaiveDateTime, cal: &Calendar, calendar_days: bool) -> i64 {
    if to <= from {
        return 0;
    }
    let mut halves = 0i64;
    let mut d = from.date();
    for _ in 0..400 {
        if d > to.date() {
            break;
        }
        if calendar_days || cal.is_working(d) {
            for (a, z) in [(9, 12), (13, 18)] {
                if from < at(d, z) && to > at(d, a) {
                    halves += 1;
                }
            }
        }
        let Some(n) = d.succ_opt() else { break };
        d = n;
    }
    halves * flow::NUM_SCALE / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M").unwrap()
    }

    fn days(a: &str, z: &str, cal: &Calendar) -> f64 {
        leave_days(t(a), t(z), cal, false) as f64 / flow::NUM_SCALE as f64
    }

    #[test]
    fn whole_and_half_working_days() {
        let cal = Calendar::default();
        // 2026-11-30 is a Monday.
        assert_eq!(days("2026-11-30 09:00", "2026-12-03 18:00", &cal), 4.0);
        assert_eq!(days("2026-11-30 09:00", "2026-11-30 12:00", &cal), 0.5);
        assert_eq!(days("2026-11-30 13:00", "2026-12-01 12:00", &cal), 1.0);
        assert_eq!(days("2026-11-30 14:30", "2026-11-30 16:00", &cal), 0.5);
        // An evening to the next morning's start covers no working time.
        assert_eq!(days("2026-11-30 18:00", "2026-12-01 09:00", &cal), 0.0);
        // Friday to Monday: the weekend is not counted.
        assert_eq!(days("2026-12-04 09:00", "2026-12-07 18:00", &cal), 2.0);
        assert_eq!(leave_days(t("2026-12-04 09:00"), t("2026-12-07 18:00"), &cal, true), 4 * flow::NUM_SCALE);
        assert_eq!(days("2026-12-05 09:00", "2026-12-06 18:00", &cal), 0.0);
    }

    #[test]
    fn holidays_and_working_weekends() {
        let cal = Calendar::of(Some("2026-10-01~2026-10-07"), Some("2026-10-10")).unwrap();
        assert_eq!(cal.holidays.len(), 7);
        // 2026-09-28 (Mon) to 2026-10-10 (Sat, a working day): 09-28..09-30 and 10-08, 10-09, 10-10.
        assert_eq!(days("2026-09-28 09:00", "2026-10-10 18:00", &cal), 6.0);
        assert!(!cal.is_working(NaiveDate::from_ymd_opt(2026, 10, 5).unwrap()));
        assert!(cal.is_working(NaiveDate::from_ymd_opt(2026, 10, 10).unwrap()));
    }

    #[test]
    fn date_lists_read_or_name_the_bad_piece() {
        assert_eq!(parse_dates("2026-01-01，2026-01-02、2026-01-03\n").unwrap().len(), 3);
        assert_eq!(parse_dates("").unwrap().len(), 0);
        assert_eq!(parse_dates("2026-13-01"), Err(BadDate("2026-13-01".into())));
        assert_eq!(parse_dates("2026-02-10~2026-02-01"), Err(BadDate("2026-02-10~2026-02-01".into())));
        assert!(parse_dates("2020-01-01~2026-01-01").is_err());
    }
}
