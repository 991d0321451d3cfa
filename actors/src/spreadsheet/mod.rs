//! The spreadsheet actor: reads uploaded Excel `.xlsx` workbooks into rows for the Data Manager
//! import and Servers sync (`infra::spreadsheet::read_sheet`, bounds in `domain::spreadsheet`).
//! Parsing never runs on the actor's thread: one workbook at a time on a blocking thread, at
//! most `MAX_WAITING` admitted (each holding at most 25 MB of input), more refused as busy
//! (`kit::BoundedWork`). It stores nothing and holds no rule of its own; what the rows become is
//! decided by the import and sync paths that receive them. Reached from
//! `POST /api/relay/spreadsheet/rows`.

use actix::prelude::*;

use domain::problem::HttpProblem;
use domain::spreadsheet::{SheetRows, SpreadsheetError};

use crate::kit::{BoundedWork, Subsystem, SubsystemCtx, WorkRefused};

pub const NAME: &str = "spreadsheet";

/// Workbooks admitted at once (one parsed, the rest waiting).
pub const MAX_WAITING: usize = 2;

/// Read the sheet named `sheet` (ignoring case), else the workbook's only sheet.
#[derive(Message)]
#[rtype(result = "Result<SheetRows, ReadSheetError>")]
pub struct ReadSheet {
    pub bytes: Vec<u8>,
    pub sheet: Option<String>,
}

/// Why no rows came back: the workbook's own refusal, or this subsystem's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadSheetError {
    #[error(transparent)]
    Workbook(#[from] SpreadsheetError),
    #[error("Another spreadsheet is being read; retry in a moment.")]
    Busy,
    #[error("the spreadsheet reader is unavailable; retry")]
    Unavailable,
    #[error("internal error")]
    Internal,
}

impl HttpProblem for ReadSheetError {
    fn status(&self) -> u16 {
        match self {
            ReadSheetError::Workbook(e) => e.status(),
            ReadSheetError::Busy | ReadSheetError::Unavailable => 503,
            ReadSheetError::Internal => 500,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ReadSheetError::Workbook(e) => e.code(),
            ReadSheetError::Busy => "busy",
            ReadSheetError::Unavailable => "unavailable",
            ReadSheetError::Internal => "internal",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        matches!(self, ReadSheetError::Busy | ReadSheetError::Unavailable).then_some(1)
    }
}

impl From<MailboxError> for ReadSheetError {
    fn from(_: MailboxError) -> Self {
        ReadSheetError::Unavailable
    }
}

pub struct SpreadsheetActor {
    subsystem: SubsystemCtx,
    parse: BoundedWork,
}

impl SpreadsheetActor {
    pub fn new(subsystem: SubsystemCtx) -> SpreadsheetActor {
        SpreadsheetActor { subsystem, parse: BoundedWork::new(MAX_WAITING) }
    }
}

impl Subsystem for SpreadsheetActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.parse.admitted()
    }
}

crate::subsystem_actor!(SpreadsheetActor);

/// Starts the supervised spreadsheet actor.
pub fn start(ctx: &SubsystemCtx) -> Addr<SpreadsheetActor> {
    let ctx = ctx.clone();
    crate::kit::start_supervised(move |_| SpreadsheetActor::new(ctx))
}

impl Handler<ReadSheet> for SpreadsheetActor {
    type Result = ResponseFuture<Result<SheetRows, ReadSheetError>>;
    fn handle(&mut self, msg: ReadSheet, _: &mut Context<Self>) -> Self::Result {
        let run = self.parse.run(move || infra::spreadsheet::read_sheet(&msg.bytes, msg.sheet.as_deref()));
        let subsystem = self.subsystem.clone();
        Box::pin(async move {
            match run.await {
                Ok(read) => read.map_err(ReadSheetError::from),
                Err(WorkRefused::Busy) => Err(ReadSheetError::Busy),
                Err(WorkRefused::Closed) => Err(ReadSheetError::Unavailable),
                Err(WorkRefused::Panicked) => {
                    tracing::error!("spreadsheet parse panicked");
                    subsystem.report_failure(NAME, "spreadsheet parse panicked");
                    Err(ReadSheetError::Internal)
                }
            }
        })
    }
}
