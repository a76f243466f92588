//! What a client sends is untrusted: the protobuf messages inside a request
//! (a descriptor's command, a ticket, an action's body) are decoded here
//! before the Flight SQL service sees them, and one that does not decode is
//! `INVALID_ARGUMENT` with a sentence. arrow-flight's own decoding answered
//! such a message with `INTERNAL` and Rust debug text
//! (`ParseError("Unable to decode Any value: ...")`), as if the server were
//! at fault. [`CheckedRequests`] wraps the service; every call passes
//! through it unchanged once its messages decode.

use arrow_flight::flight_descriptor::DescriptorType;
use arrow_flight::flight_service_server::FlightService;
use arrow_flight::sql::{
    ActionBeginSavepointRequest, ActionBeginTransactionRequest, ActionCancelQueryRequest,
    ActionClosePreparedStatementRequest, ActionCreatePreparedStatementRequest,
    ActionCreatePreparedSubstraitPlanRequest, ActionEndSavepointRequest, ActionEndTransactionRequest, Any, Command,
    ProstMessageExt,
};
use arrow_flight::{
    Action, Criteria, Empty, FlightData, FlightDescriptor, FlightInfo, HandshakeRequest, PollInfo, SchemaResult, Ticket,
};
use prost::Message;
use tonic::{Request, Response, Status, Streaming};

/// A Flight service whose requests' messages are decoded (and refused with
/// `INVALID_ARGUMENT` when they do not) before `inner` is called.
pub struct CheckedRequests<S> {
    inner: S,
}

impl<S> CheckedRequests<S> {
    /// Wraps `inner`.
    pub fn new(inner: S) -> Self {
        Self { inner }
    }
}

/// `bytes` as a Flight SQL command: an `Any` holding a message of the type it
/// names (a type this server does not know passes, and is refused by the
/// service with its own sentence).
fn check_command(bytes: &[u8], what: &str) -> Result<(), Status> {
    let any = Any::decode(bytes).map_err(|e| not_a_message(what, &e.to_string()))?;
    Command::try_from(any).map(|_| ()).map_err(|e| not_a_message(what, &e.to_string()))
}

/// The refusal of a message that does not decode.
fn not_a_message(what: &str, why: &str) -> Status {
    let why = why.strip_prefix("Parser error: ").unwrap_or(why);
    Status::invalid_argument(format!(
        "the request's {what} is not a Flight SQL message this server can read ({why}); \
         send it as a Flight SQL client library encodes it"
    ))
}

/// An action's body: an `Any` holding the request message of its type.
fn check_action(action: &Action) -> Result<(), Status> {
    fn holds<M: ProstMessageExt + Default>(any: &Any) -> Result<(), String> {
        if any.is::<M>() {
            M::decode(&*any.value).map(|_| ()).map_err(|e| e.to_string())
        } else {
            Err(format!("it holds a {}, not a {}", any.type_url, M::type_url()))
        }
    }
    let check: fn(&Any) -> Result<(), String> = match action.r#type.as_str() {
        "CreatePreparedStatement" => holds::<ActionCreatePreparedStatementRequest>,
        "ClosePreparedStatement" => holds::<ActionClosePreparedStatementRequest>,
        "CreatePreparedSubstraitPlan" => holds::<ActionCreatePreparedSubstraitPlanRequest>,
        "BeginTransaction" => holds::<ActionBeginTransactionRequest>,
        "EndTransaction" => holds::<ActionEndTransactionRequest>,
        "BeginSavepoint" => holds::<ActionBeginSavepointRequest>,
        "EndSavepoint" => holds::<ActionEndSavepointRequest>,
        "CancelQuery" => holds::<ActionCancelQueryRequest>,
        // Flight's own actions (CancelFlightInfo, ...) and unknown ones:
        // decoded, or refused, by the service.
        _ => return Ok(()),
    };
    let what = format!("{} action's body", action.r#type);
    let any = Any::decode(&*action.body).map_err(|e| not_a_message(&what, &e.to_string()))?;
    check(&any).map_err(|why| not_a_message(&what, &why))
}

/// A descriptor's command, when it is one (a path is the service's to read).
fn check_descriptor(descriptor: &FlightDescriptor) -> Result<(), Status> {
    if descriptor.r#type == DescriptorType::Cmd as i32 {
        check_command(&descriptor.cmd, "command")?;
    }
    Ok(())
}

/// A `do_put`'s refusal from arrow-flight's decoding of its descriptor (the
/// stream cannot be read ahead here): `INTERNAL` with its debug text becomes
/// `INVALID_ARGUMENT` with a sentence; any other status passes.
fn decoding_refusal(status: Status) -> Status {
    let message = status.message();
    let decoding = (status.code() == tonic::Code::Internal && message.starts_with("ParseError("))
        || (status.code() == tonic::Code::InvalidArgument && message.starts_with("DecodeError"));
    if decoding {
        // Its text is arrow-flight's debug output, not a sentence.
        not_a_message("descriptor command", "its bytes do not decode as the protobuf message it names")
    } else {
        status
    }
}

#[tonic::async_trait]
impl<S: FlightService> FlightService for CheckedRequests<S> {
    type HandshakeStream = S::HandshakeStream;
    type ListFlightsStream = S::ListFlightsStream;
    type DoGetStream = S::DoGetStream;
    type DoPutStream = S::DoPutStream;
    type DoExchangeStream = S::DoExchangeStream;
    type DoActionStream = S::DoActionStream;
    type ListActionsStream = S::ListActionsStream;

    async fn handshake(
        &self,
        request: Request<Streaming<HandshakeRequest>>,
    ) -> Result<Response<Self::HandshakeStream>, Status> {
        self.inner.handshake(request).await
    }

    async fn list_flights(&self, request: Request<Criteria>) -> Result<Response<Self::ListFlightsStream>, Status> {
        self.inner.list_flights(request).await
    }

    async fn get_flight_info(&self, request: Request<FlightDescriptor>) -> Result<Response<FlightInfo>, Status> {
        check_descriptor(request.get_ref())?;
        self.inner.get_flight_info(request).await
    }

    async fn poll_flight_info(&self, request: Request<FlightDescriptor>) -> Result<Response<PollInfo>, Status> {
        check_descriptor(request.get_ref())?;
        self.inner.poll_flight_info(request).await
    }

    async fn get_schema(&self, request: Request<FlightDescriptor>) -> Result<Response<SchemaResult>, Status> {
        check_descriptor(request.get_ref())?;
        self.inner.get_schema(request).await
    }

    async fn do_get(&self, request: Request<Ticket>) -> Result<Response<Self::DoGetStream>, Status> {
        check_command(&request.get_ref().ticket, "ticket")?;
        self.inner.do_get(request).await
    }

    async fn do_put(&self, request: Request<Streaming<FlightData>>) -> Result<Response<Self::DoPutStream>, Status> {
        self.inner.do_put(request).await.map_err(decoding_refusal)
    }

    async fn do_exchange(
        &self,
        request: Request<Streaming<FlightData>>,
    ) -> Result<Response<Self::DoExchangeStream>, Status> {
        self.inner.do_exchange(request).await
    }

    async fn do_action(&self, request: Request<Action>) -> Result<Response<Self::DoActionStream>, Status> {
        check_action(request.get_ref())?;
        self.inner.do_action(request).await
    }

    async fn list_actions(&self, request: Request<Empty>) -> Result<Response<Self::ListActionsStream>, Status> {
        self.inner.list_actions(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_flight::sql::CommandStatementQuery;

    #[test]
    fn a_command_that_does_not_decode_is_invalid_argument_with_a_sentence() {
        let garbage = check_command(&[0xff, 0xff, 0xff], "ticket").unwrap_err();
        assert_eq!(garbage.code(), tonic::Code::InvalidArgument);
        assert!(garbage.message().starts_with("the request's ticket is not a Flight SQL message"), "{garbage:?}");
        // A known type whose value is not that message.
        let any = Any { type_url: CommandStatementQuery::type_url().into(), value: vec![0x0a, 0x90].into() };
        let lying = check_command(&any.encode_to_vec(), "command").unwrap_err();
        assert_eq!(lying.code(), tonic::Code::InvalidArgument);
        assert!(!lying.message().contains("ParseError("), "{lying:?}");
        let good = CommandStatementQuery { query: "SELECT 1".into(), transaction_id: None }.as_any();
        check_command(&good.encode_to_vec(), "command").unwrap();
    }

    #[test]
    fn an_action_body_must_hold_its_request() {
        let query = CommandStatementQuery { query: "SELECT 1".into(), transaction_id: None }.as_any();
        let wrong = Action { r#type: "BeginTransaction".into(), body: query.encode_to_vec().into() };
        assert_eq!(check_action(&wrong).unwrap_err().code(), tonic::Code::InvalidArgument);
        let right = ActionBeginTransactionRequest {}.as_any();
        check_action(&Action { r#type: "BeginTransaction".into(), body: right.encode_to_vec().into() }).unwrap();
        let unknown = Action { r#type: "Whatever".into(), body: vec![0xff].into() };
        check_action(&unknown).unwrap();
    }
}
