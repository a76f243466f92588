//! The gRPC status a client sees for each kind of core error.

use swingdb::ErrorKind;
use tonic::Status;

/// A core error as the gRPC status a client sees (its message kept whole).
pub(crate) fn status(err: swingdb::Error) -> Status {
    let message = err.message().to_string();
    match err.kind() {
        ErrorKind::Programming | ErrorKind::Data => Status::invalid_argument(message),
        ErrorKind::Integrity => Status::failed_precondition(message),
        ErrorKind::Conflict => Status::aborted(message),
        ErrorKind::Corruption => Status::data_loss(message),
        ErrorKind::NotSupported => Status::unimplemented(message),
        ErrorKind::Interrupted => Status::cancelled(message),
        ErrorKind::Operational => Status::unavailable(message),
        _ => Status::internal(message),
    }
}
