//! The shapes of the server's answers: a `GetFlightInfo` of one endpoint,
//! a `DoGet` of one batch, a schema as Flight SQL sends one.

use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::flight_service_server::FlightService;
use arrow_flight::sql::Any;
use arrow_flight::{FlightDescriptor, FlightEndpoint, FlightInfo, IpcMessage, SchemaAsIpc, Ticket};
use futures::TryStreamExt;
use prost::Message;
use swingdb::arrow::datatypes::Schema;
use swingdb::arrow::ipc::writer::IpcWriteOptions;
use swingdb::arrow::record_batch::RecordBatch;
use tonic::{Response, Status};

/// What a `DoGet` answers.
pub type DoGetStream = <crate::SwingdbFlight as FlightService>::DoGetStream;

/// What a `GetFlightInfo` answers: the rows' schema and one endpoint whose
/// ticket is `ticket` (which `DoGet` hands back), for `descriptor`.
pub fn flight_info(schema: &Schema, ticket: Any, descriptor: FlightDescriptor) -> Result<Response<FlightInfo>, Status> {
    let endpoint = FlightEndpoint::new().with_ticket(Ticket::new(ticket.encode_to_vec()));
    let info = FlightInfo::new()
        .try_with_schema(schema)
        .map_err(|e| Status::internal(format!("cannot describe the result: {e}")))?
        .with_endpoint(endpoint)
        .with_descriptor(descriptor);
    Ok(Response::new(info))
}

/// `batch` as the whole answer of a `DoGet`.
pub fn one_batch(batch: RecordBatch) -> Response<DoGetStream> {
    let stream = FlightDataEncoderBuilder::new()
        .with_schema(batch.schema())
        .build(futures::stream::once(async { Ok(batch) }))
        .map_err(Status::from);
    Response::new(Box::pin(stream))
}

/// `schema` as Flight SQL sends one (an IPC message); nothing for none.
pub fn ipc_schema(schema: Option<&Schema>) -> Result<prost::bytes::Bytes, Status> {
    let Some(schema) = schema else { return Ok(Default::default()) };
    let message = IpcMessage::try_from(SchemaAsIpc::new(schema, &IpcWriteOptions::default()))
        .map_err(|e| Status::internal(format!("cannot describe the statement: {e}")))?;
    Ok(message.0)
}
