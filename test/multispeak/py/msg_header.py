"""The MultiSpeakMsgHeader an OMS adapter sends, built from the served WSDL by an unmodified zeep client.
Shared by zeep_client.py and zeep_calls.py."""
import zeep

NS = {'4.1': 'http://www.multispeak.org/Version_4.1_Release', '3.0': 'http://www.multispeak.org/Version_3.0'}


def client_and_header(wsdl, version, user, pwd):
    """A zeep client of the WSDL and the header with the caller's credentials for that MultiSpeak version."""
    client = zeep.Client(wsdl)
    header_type = client.get_element(f'{{{NS[version]}}}MultiSpeakMsgHeader')
    fields = {'UserID': user, 'Pwd': pwd}
    if version == '4.1':
        fields.update(MajorVersion=4, MinorVersion=1, BuildString='Release')
    else:
        fields.update(Version='3.0')
    return client, header_type(**fields)
