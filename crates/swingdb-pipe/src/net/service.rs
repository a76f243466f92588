//! The Flight service of one exported pipe: its transfer's state, the
//! claim, the streams with their trailers, and the importer's settling
//! actions (the protocol is described in [`super`]).

use super::*;
use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::error::FlightError;
use arrow_flight::flight_service_server::FlightService;
use arrow_flight::{
    Action, ActionType, Criteria, Empty, FlightDescriptor, FlightEndpoint, FlightInfo, HandshakeRequest,
    HandshakeResponse, PollInfo, PutResult, SchemaResult, Ticket,
};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::writer::IpcWriteOptions;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use parking_lot::{Condvar, Mutex};
use std::sync::Arc;
use swingdb_storage::dir::files::random_id;
use tokio::sync::mpsc;
use tonic::{Request, Response, Status, Streaming};

/// Batches a stream holds before its writer waits for the importer.
const STREAM_DEPTH: usize = 4;

/// What a writer puts into a stream.
pub(super) enum Piece {
    Batch(RecordBatch),
    /// The writer sent everything, this many rows: the trailer may go out.
    End(u64),
}

/// Where the transfer stands.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Phase {
    /// No importer has claimed the pipe yet.
    Waiting,
    /// An importer claimed it; rows flow.
    Claimed,
    /// The importer confirmed this many rows (or a plain client got every stream).
    Done(u64),
    /// The importer gave up, for this reason.
    Refused(String),
    /// This side gave up, for this reason.
    Ended(String),
}

/// The streams of the claimed transfer.
pub(super) struct State {
    pub(super) phase: Phase,
    pub(super) transfer: String,
    pub(super) confirm: bool,
    pub(super) verify: bool,
    pub(super) options: IpcWriteOptions,
    pub(super) senders: Vec<mpsc::Sender<Piece>>,
    pub(super) receivers: Vec<Option<mpsc::Receiver<Piece>>>,
    pub(super) trailers: Vec<Option<Trailer>>,
}

pub(super) struct Shared {
    pub(super) name: String,
    pub(super) token: Token,
    pub(super) schema: SchemaRef,
    pub(super) url: PipeUrl,
    pub(super) state: Mutex<State>,
    pub(super) changed: Condvar,
}

impl Shared {
    /// Ends the transfer from this side (unless it finished): every stream
    /// ends with `why`.
    pub(super) fn end(&self, why: &str) {
        let mut state = self.state.lock();
        if matches!(state.phase, Phase::Waiting | Phase::Claimed) {
            state.phase = Phase::Ended(why.to_string());
            state.senders.clear();
        }
        self.changed.notify_all();
    }

    /// The error of a transfer that ended in `phase`.
    pub(super) fn failure(&self, phase: &Phase) -> Error {
        match phase {
            Phase::Refused(why) => Error::operational(format!("pipe '{}': the importer gave up: {why}", self.name)),
            Phase::Ended(why) => Error::operational(format!("pipe '{}': {why}", self.name)),
            // Only a confirming importer that lies says so before every row went out.
            Phase::Done(rows) => Error::operational(format!(
                "pipe '{}': the importer said it stored {rows} rows before all were sent",
                self.name
            )),
            _ => Error::internal("the transfer did not fail"),
        }
    }

    /// Claims the pipe for `claim` (sent as `descriptor`); the answer for the importer.
    pub(super) fn claim(&self, claim: Claim, descriptor: FlightDescriptor) -> std::result::Result<FlightInfo, Status> {
        if claim.pipe != self.name {
            return Err(Status::not_found(format!("this address exports pipe '{}', not '{}'", self.name, claim.pipe)));
        }
        let mut state = self.state.lock();
        if state.phase != Phase::Waiting {
            return Err(Status::unavailable(format!("pipe '{}' is taken by another importer", self.name)));
        }
        let n = streams(self.url.workers, claim.workers);
        state.options = Compression::ipc_options(self.url.compression.or(claim.compression))
            .map_err(|e| Status::internal(e.to_string()))?;
        state.transfer = format!("{}{}", random_id(), random_id());
        state.confirm = claim.confirm;
        state.verify = self.url.verify || claim.verify;
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..n).map(|_| mpsc::channel(STREAM_DEPTH)).unzip();
        state.senders = senders;
        state.receivers = receivers.into_iter().map(Some).collect();
        state.trailers = vec![None; n];
        state.phase = Phase::Claimed;
        self.changed.notify_all();
        let terms = Terms { protocol: PROTOCOL, transfer: state.transfer.clone(), verify: state.verify };
        let mut info = FlightInfo::new()
            .try_with_schema(&self.schema)
            .map_err(|e| Status::internal(e.to_string()))?
            .with_descriptor(descriptor)
            .with_app_metadata(serde_json::to_vec(&terms).expect("terms serialize"));
        for i in 0..n {
            info =
                info.with_endpoint(FlightEndpoint::new().with_ticket(Ticket::new(format!("{}/{i}", state.transfer))));
        }
        Ok(info)
    }

    /// The rows of stream `ticket` as Flight messages, then its trailer.
    pub(super) fn stream(
        self: &Arc<Self>,
        ticket: &[u8],
    ) -> std::result::Result<BoxStream<'static, StatusResult<FlightData>>, Status> {
        let mut state = self.state.lock();
        let text = std::str::from_utf8(ticket).map_err(|_| Status::invalid_argument("the ticket is not text"))?;
        let (transfer, index) =
            text.split_once('/').ok_or_else(|| Status::invalid_argument("the ticket is not TRANSFER/INDEX"))?;
        if state.phase == Phase::Waiting || transfer != state.transfer {
            return Err(Status::not_found("the ticket is not of this transfer (it ended, or never was)"));
        }
        let index: usize = index.parse().map_err(|_| Status::invalid_argument("the ticket's index is not a number"))?;
        let rx = state
            .receivers
            .get_mut(index)
            .ok_or_else(|| Status::not_found(format!("the transfer has no stream {index}")))?
            .take()
            .ok_or_else(|| Status::failed_precondition(format!("stream {index} was fetched already")))?;
        let tally = Arc::new(Mutex::new(Tally { crc: state.verify.then(crc32fast::Hasher::new), sent: None }));
        let input = {
            let tally = tally.clone();
            futures::stream::unfold(rx, move |mut rx| {
                let tally = tally.clone();
                async move {
                    match rx.recv().await? {
                        Piece::Batch(batch) => Some((Ok::<_, FlightError>(batch), rx)),
                        Piece::End(rows) => {
                            tally.lock().sent = Some(rows);
                            None
                        }
                    }
                }
            })
        };
        let counting = tally.clone();
        let messages = FlightDataEncoderBuilder::new()
            .with_schema(self.schema.clone())
            // The writer cut the batches by their own bytes already.
            .with_max_flight_data_size(usize::MAX)
            .with_options(state.options.clone())
            .build(input)
            .map_err(Status::from)
            .map_ok(move |data| {
                if let Some(crc) = &mut counting.lock().crc {
                    checksum(crc, &data);
                }
                data
            });
        let shared = self.clone();
        let trailer = futures::stream::once(async move {
            let (sent, crc32) = {
                let mut tally = tally.lock();
                (tally.sent, tally.crc.take().map_or(0, |c| c.finalize()))
            };
            let Some(rows) = sent else {
                let state = shared.state.lock();
                return Err(match &state.phase {
                    Phase::Ended(why) => Status::aborted(why.clone()),
                    Phase::Refused(why) => Status::aborted(format!("the importer gave up: {why}")),
                    _ => Status::aborted("the exporter stopped sending (it failed or was cancelled)"),
                });
            };
            let trailer = Trailer { rows, crc32 };
            shared.delivered(index, trailer);
            Ok(FlightData {
                app_metadata: serde_json::to_vec(&trailer).expect("trailers serialize").into(),
                ..Default::default()
            })
        });
        Ok(Box::pin(messages.chain(trailer)))
    }

    /// Stream `index` went out whole: a plain client's transfer is done when
    /// every stream did.
    pub(super) fn delivered(&self, index: usize, trailer: Trailer) {
        let mut state = self.state.lock();
        state.trailers[index] = Some(trailer);
        if !state.confirm && state.phase == Phase::Claimed && state.trailers.iter().all(Option::is_some) {
            let rows = state.trailers.iter().flatten().map(|t| t.rows).sum();
            state.phase = Phase::Done(rows);
            self.changed.notify_all();
        }
    }

    /// The importer's `done` or `abort`.
    pub(super) fn settle(&self, done: bool, body: &[u8]) -> std::result::Result<(), Status> {
        let settle: Settle =
            serde_json::from_slice(body).map_err(|e| Status::invalid_argument(format!("the action's body: {e}")))?;
        let mut state = self.state.lock();
        if state.phase == Phase::Waiting || settle.transfer != state.transfer {
            return Err(Status::not_found("not a transfer of this pipe"));
        }
        if state.phase == Phase::Claimed {
            let why: String = settle.message.chars().take(4096).collect();
            state.phase = if done { Phase::Done(settle.rows) } else { Phase::Refused(why) };
            state.senders.clear();
            self.changed.notify_all();
        }
        Ok(())
    }
}

/// One stream as it goes out: the checksum of its messages, and the rows
/// its writer sent once it ended the stream (not just went away).
struct Tally {
    crc: Option<crc32fast::Hasher>,
    sent: Option<u64>,
}

type StatusResult<T> = std::result::Result<T, Status>;

/// The Flight service of one exported pipe.
pub(super) struct Service(pub(super) Arc<Shared>);

type Answer<T> = std::result::Result<Response<T>, Status>;

#[tonic::async_trait]
impl FlightService for Service {
    type HandshakeStream = BoxStream<'static, StatusResult<HandshakeResponse>>;
    type ListFlightsStream = BoxStream<'static, StatusResult<FlightInfo>>;
    type DoGetStream = BoxStream<'static, StatusResult<FlightData>>;
    type DoPutStream = BoxStream<'static, StatusResult<PutResult>>;
    type DoExchangeStream = BoxStream<'static, StatusResult<FlightData>>;
    type DoActionStream = BoxStream<'static, StatusResult<arrow_flight::Result>>;
    type ListActionsStream = BoxStream<'static, StatusResult<ActionType>>;

    async fn handshake(&self, request: Request<Streaming<HandshakeRequest>>) -> Answer<Self::HandshakeStream> {
        self.0.token.check_handshake(request.metadata())?;
        let mut response: Response<Self::HandshakeStream> =
            Response::new(Box::pin(futures::stream::once(async { Ok(HandshakeResponse::default()) })));
        let bearer = self.0.token.bearer().parse().map_err(|_| Status::internal("the token is not a header"))?;
        response.metadata_mut().insert("authorization", bearer);
        Ok(response)
    }

    async fn get_flight_info(&self, request: Request<FlightDescriptor>) -> Answer<FlightInfo> {
        self.0.token.check(request.metadata())?;
        let descriptor = request.into_inner();
        let claim = match descriptor.path.as_slice() {
            [name] => Claim { pipe: name.clone(), workers: 1, compression: None, verify: false, confirm: false },
            [] => serde_json::from_slice(&descriptor.cmd).map_err(|e| {
                Status::invalid_argument(format!("the descriptor is neither a pipe name nor a claim: {e}"))
            })?,
            _ => return Err(Status::invalid_argument("a pipe's descriptor is its name as a path of one element")),
        };
        Ok(Response::new(self.0.claim(claim, descriptor)?))
    }

    async fn do_get(&self, request: Request<Ticket>) -> Answer<Self::DoGetStream> {
        self.0.token.check(request.metadata())?;
        Ok(Response::new(self.0.stream(&request.into_inner().ticket)?))
    }

    async fn do_action(&self, request: Request<Action>) -> Answer<Self::DoActionStream> {
        self.0.token.check(request.metadata())?;
        let action = request.into_inner();
        match action.r#type.as_str() {
            DONE => self.0.settle(true, &action.body)?,
            ABORT => self.0.settle(false, &action.body)?,
            other => return Err(Status::unimplemented(format!("a pipe has no action '{other}'"))),
        }
        Ok(Response::new(Box::pin(futures::stream::empty())))
    }

    async fn list_actions(&self, request: Request<Empty>) -> Answer<Self::ListActionsStream> {
        self.0.token.check(request.metadata())?;
        let actions = [(DONE, "the importer stored the rows"), (ABORT, "the importer gave up")]
            .map(|(name, what)| Ok(ActionType { r#type: name.into(), description: what.into() }));
        Ok(Response::new(Box::pin(futures::stream::iter(actions))))
    }

    async fn list_flights(&self, _: Request<Criteria>) -> Answer<Self::ListFlightsStream> {
        Err(Status::unimplemented("a pipe is claimed by its name with GetFlightInfo"))
    }

    async fn poll_flight_info(&self, _: Request<FlightDescriptor>) -> Answer<PollInfo> {
        Err(Status::unimplemented("a pipe is claimed with GetFlightInfo"))
    }

    async fn get_schema(&self, _: Request<FlightDescriptor>) -> Answer<SchemaResult> {
        Err(Status::unimplemented("a pipe's schema comes with GetFlightInfo"))
    }

    async fn do_put(&self, _: Request<Streaming<FlightData>>) -> Answer<Self::DoPutStream> {
        Err(Status::unimplemented("this is the exporting end of a pipe: it only sends"))
    }

    async fn do_exchange(&self, _: Request<Streaming<FlightData>>) -> Answer<Self::DoExchangeStream> {
        Err(Status::unimplemented("a pipe does not exchange"))
    }
}
